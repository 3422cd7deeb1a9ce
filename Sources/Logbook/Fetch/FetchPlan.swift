import Foundation
import LogStore

/// A fetch reduced to what the scan needs: how to test a record, how to order matches, which
/// slice to keep. Built from a ``FetchDescriptor`` or an ``EntityFetchDescriptor``.
struct FetchPlan {
    enum Matcher {
        case all
        /// A filter bound to attribute positions, evaluated on decoded values.
        case filter(FilterNode)
        /// Evaluated on an object: the scratch object for stored records, the live one for
        /// pending objects.
        case object((AnyObject) throws -> Bool)
        /// Evaluated on objects of a context (for predicates a scratch object cannot answer:
        /// relationships, identifiers): this context's for stored records, unless pending
        /// changes are left out (then a fresh context's), and the live ones for pending objects.
        case registeredObject((AnyObject) throws -> Bool)
    }

    struct SortKey {
        let attribute: Int
        let ascending: Bool
        /// For strings, a comparator other than code-point order.
        let stringComparator: String.StandardComparator?
    }

    let binding: EntityBinding
    var matcher: Matcher = .all
    var sortKeys: [SortKey] = []
    /// Set when some sort key is not an attribute: matches are built as objects and ordered with it.
    var objectOrder: ((AnyObject, AnyObject) -> ComparisonResult)?
    var limit: Int?
    var offset: Int?
    var includePendingChanges = true
    /// The stored fields to decode into the objects the fetch builds (bit i: field i, bit 63:
    /// every field from 63 on); `nil` for all. The rest are left for a fault.
    var fetchedFields: UInt64?
    /// Set when pending objects are tested otherwise than stored records (a predicate only
    /// objects answer, whose stored matches were found first).
    var pendingTest: ((AnyObject) throws -> Bool)?
}

/// One match of a scan: a stored record (its bytes kept in the scan's buffer) or a pending object.
struct FetchCandidate {
    let primaryKey: UInt64
    /// The pending object's entry in the context's table; -1 for stored records.
    let live: Int32
    let bytesStart: Int
    let bytesCount: Int
}

/// What a scan found: every match in the order the scan met it, and the order and slice the
/// plan asks for.
struct ScanResult {
    /// The matches: stored records in log order, then pending objects.
    var candidates: [FetchCandidate]
    /// Positions in `candidates`, ordered and sliced (not sliced when the plan orders objects
    /// with `objectOrder`, which needs them all).
    var order: [Int]
    /// The stored matches' bytes (empty unless records were kept).
    var bytes: [UInt8]
    /// How the matches were found.
    var explanation = FetchExplanation()
    /// Whether the stored matches were built as the scan met them (their candidates name
    /// their entries) rather than kept as bytes.
    var built = false

    /// The candidates in order.
    var ordered: [FetchCandidate] { order.map { candidates[$0] } }
}
