/// The rows of a list, read when they are shown: how many there are, and the rows of a range.
/// What a list screen pages through, so that a list of a million employees never builds them
/// all. Not thread-safe.
protocol RowSource<Row>: AnyObject {
    associatedtype Row: Identifiable

    /// The number of rows.
    var count: Int { get }

    /// The rows at `positions` (a range within `0..<count`), in order.
    /// - Throws: ``EmployeesError/store(_:)`` if they cannot be read.
    func rows(_ positions: Range<Int>) throws(EmployeesError) -> [Row]

    /// The position of the row with id `id`, if it is in the list.
    func position(of id: Row.ID) -> Int?
}

/// Rows held in an array (the companies, and lists in tests).
final class ArrayRows<Row: Identifiable>: RowSource {
    let all: [Row]

    init(_ rows: [Row]) { all = rows }

    var count: Int { all.count }

    func rows(_ positions: Range<Int>) -> [Row] { Array(all[positions]) }

    func position(of id: Row.ID) -> Int? { all.firstIndex { $0.id == id } }
}
