import Foundation
import Logbook

/// Random values of the types of ``Gadget`` and ``OptionalGadget``, with their edge values
/// often, and their stored forms, for round-trip tests.
public struct TypeValues {
    public var rng: SeededGenerator
    /// Whether strings may hold U+0000 (PostgreSQL's text cannot).
    public var allowsNUL = true

    public init(seed: UInt64, allowsNUL: Bool = true) {
        rng = SeededGenerator(seed: seed)
        self.allowsNUL = allowsNUL
    }

    private mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &rng) < percent
    }

    private mutating func pick<T>(_ values: [T]) -> T { values.randomElement(using: &rng)! }

    /// An integer of `T`, its extremes and zero a third of the time.
    public mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T {
        chance(33) ? pick([T.min, T.max, 0, 1]) : T.random(in: T.min...T.max, using: &rng)
    }

    public mutating func float() -> Float {
        chance(40)
            ? pick([
                0, -0.0, .nan, .infinity, -.infinity, .leastNonzeroMagnitude,
                .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 0.1, 1.0 / 3,
            ])
            : Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &rng))
    }

    public mutating func double() -> Double {
        chance(30)
            ? pick([0, -0.0, 1e300, -1e-300, 18.5, .infinity])
            : Double.random(in: -1000...1000, using: &rng)
    }

    public mutating func decimal() -> Decimal {
        if chance(30) {
            return pick([
                Decimal(0), Decimal.nan, Decimal(string: "12.50")!, Decimal(string: "-0.001")!,
                Decimal(string: "99999999999999999999999999999999999999")!,
                Decimal(string: "-3402823669209384634633746074317682114.55")!,
                Decimal(string: "0.0000000000000000000000000000000000000001")!,
                Decimal(string: "1e120")!, Decimal(string: "-1e-120")!,
                Decimal(string: "0.1000000000000000000001")!, Decimal(string: "0.1")!,
            ])
        }
        let digits = Int.random(in: 1...30, using: &rng)
        var text = chance(50) ? "-" : ""
        for _ in 0..<digits { text += String(Int.random(in: 0...9, using: &rng)) }
        let exponent = Int.random(in: -40...40, using: &rng)
        return Decimal(string: text + "e\(exponent)")!
    }

    public mutating func string() -> String {
        chance(30)
            ? pick([
                "", "Pune", "e\u{301}", allowsNUL ? "\u{0}nul" : "\u{1}ctl", "李小龙", "a,\"b\"\n",
                "🎉", " spaced ",
            ])
            : String(
                (0..<Int.random(in: 0...12, using: &rng)).map { _ in
                    pick(Array("abcXYZ 09éß,\"'\\"))
                })
    }

    public mutating func url() -> URL {
        pick([
            URL(string: "https://example.com/")!,
            URL(string: "https://logbook.example/a?b=c&d=%20")!,
            URL(string: "file:///tmp/x%20y")!, URL(string: "mailto:ann@example.com")!,
            URL(
                string: "https://xn--bcher-kva.example/pfad/🎉".addingPercentEncoding(
                    withAllowedCharacters: .urlPathAllowed)!)!,
            URL(string: "relative/path")!,
        ])
    }

    public mutating func status() -> Status { pick(Status.allCases) }
    public mutating func priority() -> Priority { pick([.low, .normal, .high]) }

    public mutating func address() -> Address {
        Address(
            street: string(), city: pick(["Pune", "Oslo", "", "Zürich"]),
            zip: chance(30) ? nil : String(Int.random(in: 10000...99999, using: &rng)),
            geo: Geo(lat: double(), lon: double()))
    }

    public mutating func tags() -> [String] {
        (0..<Int.random(in: 0...4, using: &rng)).map { _ in pick(["a", "b", "é", "", "long tag"]) }
    }

    public mutating func labels() -> [Tag] {
        (0..<Int.random(in: 0...3, using: &rng)).map { _ in
            Tag(name: string(), weight: integer(Int32.self), status: chance(50) ? nil : status())
        }
    }

    /// A gadget with random values.
    public mutating func gadget(_ name: String) -> Gadget {
        let g = Gadget()
        g.name = name
        g.i8 = integer(Int8.self)
        g.i16 = integer(Int16.self)
        g.i32 = integer(Int32.self)
        g.u8 = integer(UInt8.self)
        g.u16 = integer(UInt16.self)
        g.u32 = integer(UInt32.self)
        g.u64 = integer(UInt64.self)
        g.ratio = float()
        g.price = decimal()
        g.homepage = url()
        g.status = status()
        g.priority = priority()
        g.address = address()
        g.tags = tags()
        g.codes = Set((0..<Int.random(in: 0...4, using: &rng)).map { _ in integer(Int32.self) })
        g.labels = labels()
        g.matrix = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
            (0..<Int.random(in: 0...3, using: &rng)).map { _ in integer(Int.self) }
        }
        return g
    }

    /// An optional gadget, each value `nil` a third of the time.
    public mutating func optionalGadget(_ name: String) -> OptionalGadget {
        let g = OptionalGadget()
        g.name = name
        if !chance(33) { g.i8 = integer(Int8.self) }
        if !chance(33) { g.u32 = integer(UInt32.self) }
        if !chance(33) { g.u64 = integer(UInt64.self) }
        if !chance(33) { g.ratio = float() }
        if !chance(33) { g.price = decimal() }
        if !chance(33) { g.homepage = url() }
        if !chance(33) { g.status = status() }
        if !chance(33) { g.priority = priority() }
        if !chance(33) { g.address = address() }
        if !chance(33) { g.tags = tags() }
        if !chance(33) {
            g.statuses = Set((0..<Int.random(in: 0...3, using: &rng)).map { _ in status() })
        }
        g.maybeNames = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
            chance(40) ? nil : string()
        }
        return g
    }
}

/// The stored fields of a gadget, by name, as a decoded record holds them.
public func storedValues(of g: Gadget) -> [String: AttributeValue] {
    var values: [String: AttributeValue] = [
        "name": .string(g.name), "i8": .integer(Int64(g.i8)), "i16": .integer(Int64(g.i16)),
        "i32": .integer(Int64(g.i32)), "u8": .integer(Int64(g.u8)), "u16": .integer(Int64(g.u16)),
        "u32": .integer(Int64(g.u32)), "u64": .unsigned(g.u64), "ratio": .float(g.ratio),
        "price": .decimal(g.price), "homepage": .string(g.homepage.absoluteString),
        "status": .string(g.status.rawValue), "priority": .integer(Int64(g.priority.rawValue)),
        "tags": .array(g.tags.map { .string($0) }),
        "codes": .array(g.codes.sorted().map { .integer(Int64($0)) }),
        "labels": .array(g.labels.map(tagValue)),
        "matrix": .array(g.matrix.map { .array($0.map { .integer(Int64($0)) }) }),
    ]
    for (key, value) in addressValues(g.address, prefix: "address") { values[key] = value }
    return values
}

/// The stored fields of an optional gadget, by name.
public func storedValues(of g: OptionalGadget) -> [String: AttributeValue] {
    var values: [String: AttributeValue] = [
        "name": .string(g.name), "i8": g.i8.map { .integer(Int64($0)) } ?? .null,
        "u32": g.u32.map { .integer(Int64($0)) } ?? .null,
        "u64": g.u64.map { .unsigned($0) } ?? .null, "ratio": g.ratio.map { .float($0) } ?? .null,
        "price": g.price.map { .decimal($0) } ?? .null,
        "homepage": g.homepage.map { .string($0.absoluteString) } ?? .null,
        "status": g.status.map { .string($0.rawValue) } ?? .null,
        "priority": g.priority.map { .integer(Int64($0.rawValue)) } ?? .null,
        "tags": g.tags.map { .array($0.map { .string($0) }) } ?? .null,
        "statuses": g.statuses.map { .array($0.map(\.rawValue).sorted().map { .string($0) }) }
            ?? .null,
        "maybeNames": .array(g.maybeNames.map { $0.map { .string($0) } ?? .null }),
    ]
    for (key, value) in addressValues(g.address, prefix: "address") { values[key] = value }
    return values
}

private func tagValue(_ t: Tag) -> AttributeValue {
    .composite(
        CompositeValue(
            fields: ["name", "weight", "status"],
            values: [
                .string(t.name), .integer(Int64(t.weight)),
                t.status.map { .string($0.rawValue) } ?? .null,
            ]))
}

private func addressValues(_ a: Address?, prefix: String) -> [String: AttributeValue] {
    [
        prefix: a == nil ? .null : .composite(CompositeValue(fields: [], values: [])),
        prefix + ".street": a.map { .string($0.street) } ?? .null,
        prefix + ".city": a.map { .string($0.city) } ?? .null,
        prefix + ".zip": a?.zip.map { .string($0) } ?? .null,
        prefix + ".geo": a == nil ? .null : .composite(CompositeValue(fields: [], values: [])),
        prefix + ".geo.lat": a.map { .double($0.geo.lat) } ?? .null,
        prefix + ".geo.lon": a.map { .double($0.geo.lon) } ?? .null,
    ]
}

/// Whether two values are the same stored value: doubles and floats by their bits (NaN is
/// NaN, -0 is not +0), decimals as decimals, arrays and composites element by element. With
/// `anyNaN`, any two NaNs are the same: text (JSON, CSV, SQL) writes every NaN as `nan`, so a
/// NaN's payload does not survive an export.
public func sameValue(_ a: AttributeValue, _ b: AttributeValue, anyNaN: Bool = false) -> Bool {
    switch (a, b) {
    case (.double(let x), .double(let y)):
        return x.bitPattern == y.bitPattern || (anyNaN && x.isNaN && y.isNaN)
    case (.float(let x), .float(let y)):
        return x.bitPattern == y.bitPattern || (anyNaN && x.isNaN && y.isNaN)
    case (.decimal(let x), .decimal(let y)): return x == y || (x.isNaN && y.isNaN)
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1, anyNaN: anyNaN) }
    case (.composite(let x), .composite(let y)):
        return x.fields == y.fields && x.values.count == y.values.count
            && zip(x.values, y.values).allSatisfy { sameValue($0, $1, anyNaN: anyNaN) }
    default: return a == b
    }
}

/// The first field where two sets of stored values differ (``sameValue(_:_:anyNaN:)``),
/// described, or `nil`.
public func firstDifference(
    _ found: [String: AttributeValue], _ expected: [String: AttributeValue], anyNaN: Bool = false
) -> String? {
    for key in Set(found.keys).union(expected.keys).sorted() {
        let f = found[key] ?? .null
        let e = expected[key] ?? .null
        if !sameValue(f, e, anyNaN: anyNaN) { return "\(key): found \(f), expected \(e)" }
    }
    return nil
}
