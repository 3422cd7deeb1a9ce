/// The data every workload uses, the same for both engines and every run: a fixed seed feeds a
/// generator whose sequence depends on nothing else.

/// Seeds of the suite. Changing one changes every figure, so they are constants.
enum Seed {
    /// Employees, keys and value bytes.
    static let data: UInt64 = 0x4C6F_6762_6F6F_6B01
    /// Which ids random reads, updates and deletes pick.
    static let access: UInt64 = 0x4C6F_6762_6F6F_6B02
}

/// SplitMix64: small, fast, and fully determined by its seed (Swift's `random(in:using:)` on top
/// of it is deterministic too).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    mutating func nextDouble() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in `1...n`.
    mutating func id(upTo n: Int) -> Int { Int(next() % UInt64(n)) + 1 }
}

/// Engine keys: the id as 12 ASCII decimal digits, so byte order is id order (SQLite range scans
/// and LogStore point reads then see the same keys).
enum BenchKey {
    static let size = 12

    /// A new key buffer holding `id`.
    static func make(_ id: Int) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: size)
        write(id, into: &key)
        return key
    }

    /// Overwrites `key` (exactly ``size`` bytes) with `id`, without allocating.
    static func write(_ id: Int, into key: inout [UInt8]) {
        var rest = id
        key.withUnsafeMutableBufferPointer { bytes in
            for index in stride(from: size - 1, through: 0, by: -1) {
                bytes[index] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                rest /= 10
            }
        }
    }
}

/// Value bytes: slices of a fixed random pool (as leveldb's db_bench does), so making a value
/// costs a copy and no random number per byte.
struct ValuePool {
    private let pool: [UInt8]

    init(seed: UInt64 = Seed.data) {
        var rng = SeededGenerator(seed: seed)
        pool = (0..<(1 << 20)).map { _ in UInt8(truncatingIfNeeded: 97 + rng.next() % 26) }
    }

    /// Overwrites `value` (its size is kept) with the pool bytes at an offset drawn from `rng`.
    func fill(_ value: inout [UInt8], using rng: inout SeededGenerator) {
        let size = value.count
        let offset = Int(rng.next() % UInt64(pool.count - size))
        value.withUnsafeMutableBytes { target in
            pool.withUnsafeBytes { source in
                target.copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + size]))
            }
        }
    }
}

/// What a workload read: compared between engines, so a benchmark that computes nothing fails.
/// Order-independent (a sum of record hashes), since LogStore iterates in no set order.
struct Checksum: Equatable, CustomStringConvertible {
    var records = 0
    var bytes = 0
    var hash: UInt64 = 0

    mutating func add(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        records += 1
        bytes += key.count + value.count
        hash &+= Checksum.hash(key) &* 31 ^ Checksum.hash(value)
    }

    mutating func add(value: UnsafeRawBufferPointer) {
        records += 1
        bytes += value.count
        hash &+= Checksum.hash(value)
    }

    mutating func add(_ number: Int64) {
        records += 1
        hash &+= Checksum.mix(UInt64(bitPattern: number))
    }

    var description: String { "\(records) records, \(bytes) bytes, hash \(hash)" }

    /// A word-at-a-time FNV-style hash: cheap next to any read it checks.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
        var index = 0
        while index + 8 <= bytes.count {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* 0x100_0000_01B3
            h ^= h >> 29
            index += 8
        }
        while index < bytes.count {
            h = (h ^ UInt64(bytes[index])) &* 0x100_0000_01B3
            index += 1
        }
        return mix(h)
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &* 0xBF58_476D_1CE4_E5B9
        z ^= z >> 31
        return z &* 0x94D0_49BB_1331_11EB
    }
}
