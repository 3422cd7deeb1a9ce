import Foundation
import Logbook

// Models with every attribute type of schema format 3: the integer widths, Float, Decimal, URL,
// enums, Codable structs (composites), arrays and sets, and optionals of them.

/// A String-backed enum with every case listed.
public enum Status: String, Codable, CaseIterable, Hashable, Sendable {
    case active, archived, suspended
}

/// An Int-backed enum that is not `CaseIterable`.
public enum Priority: Int, Codable, Hashable, Sendable {
    case low = 1, normal = 5, high = 10
}

/// A composite inside a composite.
public struct Geo: Codable, Hashable, Sendable {
    public var lat = 0.0
    public var lon = 0.0
    public init(lat: Double = 0, lon: Double = 0) {
        self.lat = lat
        self.lon = lon
    }
}

/// A composite: a struct stored as structured fields.
public struct Address: Codable, Hashable, Sendable {
    public var street = ""
    public var city = ""
    public var zip: String? = nil
    public var geo = Geo()
    public init(street: String = "", city: String = "", zip: String? = nil, geo: Geo = Geo()) {
        self.street = street
        self.city = city
        self.zip = zip
        self.geo = geo
    }
}

/// A composite kept in an array.
public struct Tag: Codable, Hashable, Sendable {
    public var name = ""
    public var weight: Int32 = 0
    public var status: Status? = nil
    public init(name: String = "", weight: Int32 = 0, status: Status? = nil) {
        self.name = name
        self.weight = weight
        self.status = status
    }
}

/// Every new attribute type, required.
public final class Gadget: PersistentModel {
    @Attribute public var name = ""
    @Attribute public var i8: Int8 = 0
    @Attribute public var i16: Int16 = 0
    @Attribute public var i32: Int32 = 0
    @Attribute public var u8: UInt8 = 0
    @Attribute public var u16: UInt16 = 0
    @Attribute public var u32: UInt32 = 0
    @Attribute public var u64: UInt64 = 0
    @Attribute public var ratio: Float = 0
    @Attribute public var price: Decimal = 0
    @Attribute public var homepage = URL(string: "https://example.com/")!
    @Attribute public var status = Status.active
    @Attribute public var priority = Priority.low
    @Attribute public var address = Address()
    @Attribute public var tags: [String] = []
    @Attribute public var codes: Set<Int32> = []
    @Attribute public var labels: [Tag] = []
    @Attribute public var matrix: [[Int]] = []
    public init() {}
}

/// Every new attribute type, optional.
public final class OptionalGadget: PersistentModel {
    @Attribute public var name = ""
    @Attribute public var i8: Int8? = nil
    @Attribute public var u32: UInt32? = nil
    @Attribute public var u64: UInt64? = nil
    @Attribute public var ratio: Float? = nil
    @Attribute public var price: Decimal? = nil
    @Attribute public var homepage: URL? = nil
    @Attribute public var status: Status? = nil
    @Attribute public var priority: Priority? = nil
    @Attribute public var address: Address? = nil
    @Attribute public var tags: [String]? = nil
    @Attribute public var statuses: Set<Status>? = nil
    @Attribute public var maybeNames: [String?] = []
    public init() {}
}
