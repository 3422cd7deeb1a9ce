import Foundation

/// Where a fetch finds its stored candidates.
indirect enum StoredAccess {
    /// Every record of the entity.
    case scan
    /// None (the predicate is false).
    case nothing
    /// The objects with these primary keys.
    case identifiers([UInt64])
    /// The entries of one index in these ranges (union).
    case ranges(index: Int, [IndexEntryRange])
    /// Objects any of the accesses finds.
    case union([StoredAccess])
    /// Objects every one of the accesses finds.
    case intersection([StoredAccess])
}

/// Index entries from `lower` (inclusive) up to `upper` (exclusive; `nil`: to the end).
struct IndexEntryRange: Hashable {
    var lower: [UInt8]
    var upper: [UInt8]?

    /// The entries that start with `prefix`.
    static func prefix(_ prefix: [UInt8]) -> IndexEntryRange {
        IndexEntryRange(lower: prefix, upper: IndexKey.successor(of: prefix))
    }
}

/// What the planner chose, with what the explanation reports.
struct AccessPlan {
    var access: StoredAccess = .scan
    /// Whether the access finds exactly the predicate's stored matches (no test needed to
    /// count them).
    var exact = false
    /// Whether candidates come in the fetch's sort order (with `reverse` for descending).
    var ordered = false
    var reverse = false
    /// Index entries the access is expected to visit.
    var estimate = 0
    /// The indexes used, by name.
    var indexNames: [String] = []
}

/// Picks how a fetch finds its stored candidates from the predicate (already bound to stored
/// field positions, relationships resolved), the sort and the limit, by counting index entries:
/// equality, `<` `<=` `>` `>=`, BETWEEN, IN, BEGINSWITH and `!= nil` on an index's leading
/// fields become key ranges; conjunctions take the cheapest index or intersect two; disjunctions
/// unite their terms' accesses when every term has one. A scan wins when an index would visit a
/// large part of the entity.
///
/// Run under the indexes' lock (it counts entries); immutable.
struct QueryPlanner {
    let definitions: [IndexDefinition]
    let indexes: [OrderedIndex]
    let recordCount: Int

    /// Relative costs: a record read through an index (a hash lookup, then the record) against
    /// one read by a scan (in log order), and an index entry visited without reading a record.
    static let indexedRead = 2.5
    static let scannedRead = 1.0
    static let entryVisit = 0.05

    /// - Parameters:
    ///   - sort: stored field positions and directions the result is ordered by (empty: none,
    ///     or an order an index cannot give).
    ///   - wanted: how many matches the fetch needs from the start of the order (offset +
    ///     limit), `nil` for all.
    func plan(_ filter: FilterNode?, sort: [(field: Int, ascending: Bool)], wanted: Int?)
        -> AccessPlan
    {
        var options: [(plan: AccessPlan, cost: Double)] = [
            (AccessPlan(), Double(recordCount) * Self.scannedRead)
        ]
        let terms = filter.map { Self.conjuncts($0) } ?? []
        if terms.contains(where: { if case .constant(false) = $0 { true } else { false } }) {
            return AccessPlan(access: .nothing, exact: true, ordered: true)
        }
        if let point = uniqueLookup(terms) { return point }
        let constraints = ColumnConstraints(terms)
        if let wanted, let ordered = limitedOrderedAccess(terms, constraints, sort, wanted) {
            return ordered
        }
        let singles = accesses(for: terms, constraints)
        for single in singles {
            options.append((single.plan, Double(single.plan.estimate) * Self.indexedRead))
        }
        // Two selective indexes over different terms: intersect their primary keys before
        // reading records.
        let byEstimate = singles.filter { $0.plan.access.isIndex }
            .sorted { $0.plan.estimate < $1.plan.estimate }
        if let a = byEstimate.first, recordCount > 0,
            let b = byEstimate.first(where: { $0.covers.isDisjoint(with: a.covers) })
        {
            let both = Double(a.plan.estimate) * Double(b.plan.estimate) / Double(recordCount)
            let plan = AccessPlan(
                access: .intersection([a.plan.access, b.plan.access]),
                exact: a.exactTerms && b.exactTerms
                    && a.covers.union(b.covers).count == terms.count,
                estimate: a.plan.estimate + b.plan.estimate,
                indexNames: a.plan.indexNames + b.plan.indexNames)
            options.append(
                (
                    plan,
                    Double(a.plan.estimate + b.plan.estimate) * Self.entryVisit + both
                        * Self.indexedRead
                ))
        }
        if let ordered = orderedAccess(terms, constraints, sort: sort) {
            let matches = options.map { $0.plan.estimate }.filter { $0 > 0 }.min() ?? recordCount
            let visits =
                wanted.map {
                    min(ordered.estimate, $0 * max(ordered.estimate, 1) / max(matches, 1) + $0)
                } ?? ordered.estimate
            // Sorting costs too: an ordered access is worth a little more than its reads.
            options.append((ordered, Double(visits) * Self.indexedRead * 0.9))
        }
        // On a tie, a plan that leaves no term to filter: a compound index over both terms of
        // a conjunction, say, rather than an index over one of them.
        return options.min { ($0.cost, $0.plan.exact ? 0 : 1) < ($1.cost, $1.plan.exact ? 0 : 1) }!
            .plan
    }

    /// The plan for a fetch with a limit whose ordered access answers every term exactly,
    /// when the comparison below is sure to pick it, found without counting any other access
    /// (a fetch in a loop plans once a call). That is so when no term is a disjunction or a
    /// set of identifiers, and at most one index serves the terms, so the other plans are a
    /// scan and that index's ranges: those ranges hold at least the matches, which the ordered
    /// access counts exactly, and it reads at most as many, so only the scan can win, and the
    /// cost test is the one below. `nil` to compare every plan.
    private func limitedOrderedAccess(
        _ terms: [FilterNode], _ constraints: ColumnConstraints,
        _ sort: [(field: Int, ascending: Bool)], _ wanted: Int
    ) -> AccessPlan? {
        guard !sort.isEmpty else { return nil }
        for term in terms {
            switch term {
            case .or, .identifierIn: return nil
            default: continue
            }
        }
        var usable = 0
        for definition in definitions where constraints.fields[definition.fields[0]] != nil {
            usable += 1
        }
        guard usable <= 1, let ordered = orderedAccess(terms, constraints, sort: sort),
            ordered.exact, ordered.estimate > 0
        else { return nil }
        // As in `plan`: the fewest matches any access expects (the ordered access's own count
        // when an index serves the terms; the records when none does), and the entries the
        // ordered access visits to find `wanted` of them.
        let matches = usable == 0 ? recordCount : ordered.estimate
        let (product, overflow) = wanted.multipliedReportingOverflow(by: ordered.estimate)
        guard !overflow else { return nil }
        let visits = min(ordered.estimate, product / max(matches, 1) + wanted)
        // Ties go to the exact plan, which the ordered access is and a scan is not.
        guard Double(visits) * Self.indexedRead * 0.9 <= Double(recordCount) * Self.scannedRead
        else { return nil }
        return ordered
    }

    /// A unique index whose every field the conjunction fixes to one value (not `nil`, which
    /// may repeat): at most one entry, so no other access can visit fewer and nothing is
    /// counted. The range is the entry's prefix; the collect step finds it with one search.
    private func uniqueLookup(_ terms: [FilterNode]) -> AccessPlan? {
        guard !terms.isEmpty, definitions.contains(where: { $0.isUnique }) else { return nil }
        // Field and constant of each `attribute == constant` term, in term order.
        var fixed: [(field: Int, value: AttributeValue, term: Int)] = []
        for (i, term) in terms.enumerated() {
            switch term {
            case .compare(.attribute(let f), .equal, .value(let v), false, false),
                .compare(.value(let v), .equal, .attribute(let f), false, false):
                if !v.isNull { fixed.append((f, v, i)) }
            default: continue
            }
        }
        guard !fixed.isEmpty else { return nil }
        definitions: for (d, definition) in definitions.enumerated() where definition.isUnique {
            var key: [UInt8] = []
            var covered: [Int] = []
            for (j, field) in definition.fields.enumerated() {
                // The first term on a field decides, as ``ColumnConstraints`` has it.
                guard let term = fixed.first(where: { $0.field == field }),
                    let bytes = ColumnConstraints.encode(term.value, as: definition.types[j])
                else { continue definitions }
                key += bytes
                covered.append(term.term)
            }
            // Every term covered (each fixes one field, so they are distinct): the entry is
            // the answer (an `==` answered by the index is exact); else the other terms are
            // tested on the one candidate.
            let exact = covered.count == terms.count
            return AccessPlan(
                access: .ranges(index: d, [.prefix(key)]), exact: exact, estimate: 1,
                indexNames: [definition.name])
        }
        return nil
    }

    /// The terms of a conjunction.
    static func conjuncts(_ node: FilterNode) -> [FilterNode] {
        if case .and(let a, let b) = node { return conjuncts(a) + conjuncts(b) }
        if case .constant(true) = node { return [] }
        return [node]
    }

    /// One access per index usable for `terms`, and for OR terms a union: with the terms it
    /// covers and whether it answers those exactly.
    private func accesses(for terms: [FilterNode], _ constraints: ColumnConstraints? = nil) -> [(
        plan: AccessPlan, covers: Set<Int>, exactTerms: Bool
    )] {
        var result: [(AccessPlan, Set<Int>, Bool)] = []
        for (i, term) in terms.enumerated() {
            if case .identifierIn(let keys) = term {
                result.append(
                    (
                        AccessPlan(
                            access: .identifiers(keys.sorted()), exact: terms.count == 1,
                            estimate: keys.count), [i], true
                    ))
            }
            if case .or = term, let union = unionAccess(term) {
                var plan = union
                plan.exact = union.exact && terms.count == 1
                result.append((plan, [i], union.exact))
            }
        }
        let constraints = constraints ?? ColumnConstraints(terms)
        for (d, definition) in definitions.enumerated()
        where constraints.fields[definition.fields[0]] != nil {
            guard let (ranges, covered, exact) = constraints.ranges(for: definition) else {
                continue
            }
            let estimate = Self.count(ranges, in: indexes[d])
            result.append(
                (
                    AccessPlan(
                        access: .ranges(index: d, ranges),
                        exact: exact && covered.count == terms.count, estimate: estimate,
                        indexNames: [definition.name]), covered, exact
                ))
        }
        return result
    }

    /// The union of the disjuncts' best accesses, if every disjunct has one.
    private func unionAccess(_ node: FilterNode) -> AccessPlan? {
        func disjuncts(_ n: FilterNode) -> [FilterNode] {
            if case .or(let a, let b) = n { return disjuncts(a) + disjuncts(b) }
            return [n]
        }
        var parts: [AccessPlan] = []
        for part in disjuncts(node) {
            let terms = Self.conjuncts(part)
            guard
                let best = accesses(for: terms).filter({ $0.plan.access.isIndex })
                    .min(by: { $0.plan.estimate < $1.plan.estimate })
            else { return nil }
            parts.append(best.plan)
        }
        return AccessPlan(
            access: .union(parts.map(\.access)), exact: parts.allSatisfy(\.exact),
            estimate: parts.reduce(0) { $0 + $1.estimate },
            indexNames: parts.flatMap(\.indexNames))
    }

    /// An access that yields candidates in the sort order: an index whose fields are some
    /// fields fixed by equality, then exactly the sort fields (so ties are in primary-key
    /// order, as a fetch orders them), all sorted in one direction.
    private func orderedAccess(
        _ terms: [FilterNode], _ constraints: ColumnConstraints,
        sort: [(field: Int, ascending: Bool)]
    ) -> AccessPlan? {
        guard let first = sort.first, sort.allSatisfy({ $0.ascending == first.ascending }) else {
            return nil
        }
        var best: AccessPlan?
        for (d, definition) in definitions.enumerated() {
            let fixed = definition.fields.count - sort.count
            guard fixed >= 0,
                zip(definition.fields[fixed...], sort).allSatisfy({ $0 == $1.field }),
                definition.fields[..<fixed].allSatisfy({ constraints.single($0) != nil })
            else { continue }
            let (ranges, covered, exact) =
                constraints.ranges(for: definition, orderedFrom: fixed)
                ?? ([IndexEntryRange(lower: [], upper: nil)], [], true)
            guard ranges.count == 1 else { continue }
            let plan = AccessPlan(
                access: .ranges(index: d, ranges), exact: exact && covered.count == terms.count,
                ordered: true, reverse: !first.ascending,
                estimate: Self.count(ranges, in: indexes[d]), indexNames: [definition.name])
            if best.map({ plan.estimate < $0.estimate }) ?? true { best = plan }
        }
        return best
    }

    /// Entries of `index` in `ranges`.
    static func count(_ ranges: [IndexEntryRange], in index: OrderedIndex) -> Int {
        ranges.reduce(0) { total, range in
            let from = index.lowerBound(range.lower)
            let to = range.upper.map { index.lowerBound($0) } ?? index.end
            return total + index.count(from: from, to: to)
        }
    }
}

extension StoredAccess {
    var isIndex: Bool {
        switch self {
        case .scan, .nothing: return false
        default: return true
        }
    }
}

/// What a conjunction says about each stored field, in the terms an index can use.
struct ColumnConstraints {
    enum Constraint {
        /// One value (`nil` included).
        case values([AttributeValue])
        /// Bounds, each with whether it is included; values only (no `nil`).
        case range(lower: (AttributeValue, Bool)?, upper: (AttributeValue, Bool)?)
        /// A string prefix (BEGINSWITH); inexact.
        case prefix(String)
        /// Any value but `nil`.
        case notNull
    }

    /// Per field, the constraint and the terms it came from (with whether it is exact).
    private(set) var fields: [Int: (constraint: Constraint, terms: Set<Int>, exact: Bool)] = [:]

    init(_ terms: [FilterNode]) {
        for (i, term) in terms.enumerated() {
            guard let (field, constraint, exact) = Self.constraint(term) else { continue }
            if let known = fields[field] {
                // Two bounds on one field meet; any other pair keeps the first.
                if case .range(let l1, let u1) = known.constraint,
                    case .range(let l2, let u2) = constraint
                {
                    fields[field] = (
                        .range(
                            lower: Self.tighter(l1, l2, lower: true),
                            upper: Self.tighter(u1, u2, lower: false)),
                        known.terms.union([i]), known.exact && exact
                    )
                }
                continue
            }
            fields[field] = (constraint, [i], exact)
        }
    }

    /// The single value a field is fixed to, if it is.
    func single(_ field: Int) -> AttributeValue? {
        if case .values(let values)? = fields[field]?.constraint, values.count == 1 {
            return values[0]
        }
        return nil
    }

    /// The key ranges of `definition` that the constraints allow, the terms they cover and
    /// whether they are exact; `nil` if the first field is unconstrained. With `orderedFrom`,
    /// fields from there on may take only a range (for an ordered access).
    func ranges(for definition: IndexDefinition, orderedFrom: Int? = nil) -> (
        [IndexEntryRange], Set<Int>, Bool
    )? {
        var prefixes: [[UInt8]] = [[]]
        var covered = Set<Int>()
        var exact = true
        for (j, field) in definition.fields.enumerated() {
            guard let (constraint, terms, isExact) = fields[field] else { break }
            let type = definition.types[j]
            if let orderedFrom, j > orderedFrom { break }
            switch constraint {
            case .values(let values):
                if let orderedFrom, j >= orderedFrom { return nil }
                let encoded = values.compactMap { Self.encode($0, as: type) }
                guard encoded.count == values.count, prefixes.count * encoded.count <= 4096 else {
                    return covered.isEmpty
                        ? nil : (prefixes.map(IndexEntryRange.prefix), covered, false)
                }
                prefixes = prefixes.flatMap { p in
                    Set(encoded).sorted { $0.lexicographicallyPrecedes($1) }.map { p + $0 }
                }
                covered.formUnion(terms)
                exact = exact && isExact
                continue
            case .range(let lower, let upper):
                guard let bounded = Self.bounds(lower, upper, type) else { break }
                covered.formUnion(terms)
                exact = exact && isExact
                return (prefixes.map { bounded.apply(to: $0) }, covered, exact)
            case .prefix(let text):
                guard type.isText, let bytes = IndexKey.stringPrefix(text) else { break }
                covered.formUnion(terms)
                return (prefixes.map { IndexEntryRange.prefix($0 + bytes) }, covered, false)
            case .notNull:
                covered.formUnion(terms)
                exact = exact && isExact
                return (
                    prefixes.map { p in
                        IndexEntryRange(
                            lower: p + [IndexKey.valueTag], upper: IndexKey.successor(of: p))
                    }, covered, exact
                )
            }
            break
        }
        return covered.isEmpty ? nil : (prefixes.map(IndexEntryRange.prefix), covered, exact)
    }

    /// A field's bounds as bytes to put after an equality prefix.
    private struct Bounds {
        var lower: [UInt8]
        var lowerInclusive: Bool
        var upper: [UInt8]?
        var upperInclusive: Bool

        func apply(to prefix: [UInt8]) -> IndexEntryRange {
            let start =
                lowerInclusive ? prefix + lower : IndexKey.successor(of: prefix + lower) ?? []
            let end: [UInt8]? =
                upper.map { upperInclusive ? IndexKey.successor(of: prefix + $0) : prefix + $0 }
                ?? IndexKey.successor(of: prefix)
            return IndexEntryRange(lower: start, upper: end)
        }
    }

    private static func bounds(
        _ lower: (AttributeValue, Bool)?, _ upper: (AttributeValue, Bool)?, _ type: AttributeType
    ) -> Bounds? {
        var result = Bounds(
            lower: [IndexKey.valueTag], lowerInclusive: true, upper: nil, upperInclusive: false)
        if let (value, inclusive) = lower {
            guard let bytes = encode(value, as: type) else { return nil }
            result.lower = bytes
            result.lowerInclusive = inclusive
        }
        if let (value, inclusive) = upper {
            guard let bytes = encode(value, as: type) else { return nil }
            result.upper = bytes
            result.upperInclusive = inclusive
        } else if type == .double || type == .float {
            // NaN, after every number in the index, holds no ordering comparison.
            var nan = [IndexKey.valueTag]
            IndexKey.appendDouble(.nan, to: &nan)
            result.upper = nan
        }
        return result
    }

    /// The encoding of a constant compared with a field of `type`, or `nil` when the index
    /// cannot stand for the comparison (another type, an integer field against a fraction,
    /// NaN).
    static func encode(_ value: AttributeValue, as type: AttributeType) -> [UInt8]? {
        var bytes: [UInt8] = []
        // One allocation: a tag, the payload, a string's terminator.
        if case .string(let text) = value { bytes.reserveCapacity(text.utf8.count + 3) }
        return encode(value, as: type, appendingTo: &bytes) ? bytes : nil
    }

    /// As ``encode(_:as:)``, appended to `bytes` (which a caller can reuse); `false`, with
    /// `bytes` unchanged, where that gives `nil`.
    static func encode(
        _ value: AttributeValue, as type: AttributeType, appendingTo bytes: inout [UInt8]
    ) -> Bool {
        var v = value
        switch (value, type) {
        case (.null, _): break
        case (_, _) where type.isInteger:
            // Every integer width has the one encoding: a constant out of a narrow type's range
            // still falls where it orders.
            switch value {
            case .integer: break
            case .unsigned(let u):
                guard let i = Int64(exactly: u) else { return false }
                v = .integer(i)
            case .double(let d):
                guard let i = Int64(exactly: d) else { return false }
                v = .integer(i)
            default: return false
            }
        case (_, .uint64):
            switch value {
            case .unsigned: break
            case .integer(let i):
                guard let u = UInt64(exactly: i) else { return false }
                v = .unsigned(u)
            case .double(let d):
                guard let u = UInt64(exactly: d) else { return false }
                v = .unsigned(u)
            default: return false
            }
        case (_, .double), (_, .float):
            // A float is stored in the index as the double of its value.
            switch value {
            case .double(let d) where !d.isNaN: break
            case .float(let f) where !f.isNaN: v = .double(Double(f))
            case .integer(let i):
                guard let d = Double(exactly: i) else { return false }
                v = .double(d)
            case .unsigned(let u):
                guard let d = Double(exactly: u) else { return false }
                v = .double(d)
            default: return false
            }
        case (_, .decimal):
            // Exact: decimals, and integers as decimals (binary fractions are compared
            // numerically as doubles, which the decimal order does not give).
            switch value {
            case .decimal: break
            case .integer(let i): v = .decimal(Decimal(i))
            case .unsigned(let u): v = .decimal(Decimal(u))
            default: return false
            }
        case (.string, .url): break
        case (.array, .set): break
        default:
            guard value.type == type else { return false }
        }
        IndexKey.append(v, to: &bytes)
        return true
    }

    private static func tighter(
        _ a: (AttributeValue, Bool)?, _ b: (AttributeValue, Bool)?, lower: Bool
    ) -> (AttributeValue, Bool)? {
        guard let a else { return b }
        guard let b else { return a }
        switch AttributeValue.compare(a.0, b.0) {
        case .orderedSame: return (a.0, a.1 && b.1)
        case .orderedAscending: return lower ? b : a
        case .orderedDescending: return lower ? a : b
        }
    }

    /// The field, constraint and exactness a term sets, if an index can use it.
    private static func constraint(_ term: FilterNode) -> (Int, Constraint, Bool)? {
        switch term {
        case .compare(.attribute(let i), let op, .value(let v), false, false):
            return constraint(i, op, v)
        case .compare(.value(let v), let op, .attribute(let i), false, false):
            let flipped: FilterOperator? =
                switch op {
                case .equal: .equal
                case .notEqual: .notEqual
                case .less: .greater
                case .lessOrEqual: .greaterOrEqual
                case .greater: .less
                case .greaterOrEqual: .lessOrEqual
                default: nil
                }
            return flipped.flatMap { constraint(i, $0, v) }
        case .compare(.attribute(let i), .in, .list(let values), false, false):
            return (i, .values(values), true)
        case .keyIn(let i, let keys):
            return (i, .values(keys.map { .integer(Int64(bitPattern: $0)) }), true)
        case .between(.attribute(let i), .value(let lo), .value(let hi)):
            guard !lo.isNull, !hi.isNull else { return nil }
            return (i, .range(lower: (lo, true), upper: (hi, true)), true)
        default:
            return nil
        }
    }

    private static func constraint(_ i: Int, _ op: FilterOperator, _ v: AttributeValue)
        -> (Int, Constraint, Bool)?
    {
        switch op {
        case .equal: return (i, .values([v]), true)
        case .notEqual: return v.isNull ? (i, .notNull, true) : nil
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            // Ordering against nil is false for every object: not for an index to answer.
            guard !v.isNull else { return nil }
            let inclusive = op == .lessOrEqual || op == .greaterOrEqual
            let isLower = op == .greater || op == .greaterOrEqual
            return (
                i,
                isLower
                    ? .range(lower: (v, inclusive), upper: nil)
                    : .range(lower: nil, upper: (v, inclusive)), true
            )
        case .beginsWith:
            guard case .string(let text) = v else { return nil }
            return (i, .prefix(text), false)
        default: return nil
        }
    }
}
