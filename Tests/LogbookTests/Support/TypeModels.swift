import Foundation
import Logbook

// Models with every attribute type of schema format 3: the integer widths, Float, Decimal, URL,
// enums, Codable structs (composites), arrays and sets, and optionals of them.

/// A String-backed enum with every case listed.
enum Status: String, Codable, CaseIterable, Hashable {
    case active, archived, suspended
}

/// An Int-backed enum that is not `CaseIterable`.
enum Priority: Int, Codable, Hashable {
    case low = 1, normal = 5, high = 10
}

/// A composite inside a composite.
struct Geo: Codable, Hashable {
    var lat = 0.0
    var lon = 0.0
}

/// A composite: a struct stored as structured fields.
struct Address: Codable, Hashable {
    var street = ""
    var city = ""
    var zip: String? = nil
    var geo = Geo()
}

/// A composite kept in an array.
struct Tag: Codable, Hashable {
    var name = ""
    var weight: Int32 = 0
    var status: Status? = nil
}

/// Every new attribute type, required.
final class Gadget: PersistentModel {
    @Attribute var name = ""
    @Attribute var i8: Int8 = 0
    @Attribute var i16: Int16 = 0
    @Attribute var i32: Int32 = 0
    @Attribute var u8: UInt8 = 0
    @Attribute var u16: UInt16 = 0
    @Attribute var u32: UInt32 = 0
    @Attribute var u64: UInt64 = 0
    @Attribute var ratio: Float = 0
    @Attribute var price: Decimal = 0
    @Attribute var homepage = URL(string: "https://example.com/")!
    @Attribute var status = Status.active
    @Attribute var priority = Priority.low
    @Attribute var address = Address()
    @Attribute var tags: [String] = []
    @Attribute var codes: Set<Int32> = []
    @Attribute var labels: [Tag] = []
    @Attribute var matrix: [[Int]] = []
    init() {}
}

/// Every new attribute type, optional.
final class OptionalGadget: PersistentModel {
    @Attribute var name = ""
    @Attribute var i8: Int8? = nil
    @Attribute var u32: UInt32? = nil
    @Attribute var u64: UInt64? = nil
    @Attribute var ratio: Float? = nil
    @Attribute var price: Decimal? = nil
    @Attribute var homepage: URL? = nil
    @Attribute var status: Status? = nil
    @Attribute var priority: Priority? = nil
    @Attribute var address: Address? = nil
    @Attribute var tags: [String]? = nil
    @Attribute var statuses: Set<Status>? = nil
    @Attribute var maybeNames: [String?] = []
    init() {}
}
