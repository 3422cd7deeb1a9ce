import Foundation

/// YCSB's request distributions, ported from its Java sources (`ZipfianGenerator`,
/// `ScrambledZipfianGenerator`, `SkewedLatestGenerator`), with Gray et al.'s algorithm
/// ("Quickly Generating Billion-Record Synthetic Databases", SIGMOD 1994) and YCSB's constants,
/// so the skew matches published YCSB figures. Randomness comes from a seeded generator.

/// Zipfian over `base…base+items-1`: item `base` is the most popular.
struct ZipfianGenerator {
    static let defaultTheta = 0.99

    let base: Int64
    let items: Int64
    let theta: Double
    let zeta2theta: Double
    let alpha: Double
    private(set) var zetan: Double
    private(set) var eta: Double
    private var countForZeta: Int64

    /// - Parameter zetan: ζ(items, θ) if known (it costs `items` powers to compute).
    init(min: Int64, max: Int64, theta: Double = defaultTheta, zetan: Double? = nil) {
        base = min
        items = max - min + 1
        self.theta = theta
        zeta2theta = Self.zeta(from: 0, to: 2, theta: theta, initial: 0)
        alpha = 1 / (1 - theta)
        let computed = zetan ?? Self.zeta(from: 0, to: items, theta: theta, initial: 0)
        self.zetan = computed
        countForZeta = items
        eta = (1 - pow(2 / Double(items), 1 - theta)) / (1 - zeta2theta / computed)
    }

    /// ζ(n, θ) = Σ_{i=1..n} 1/i^θ, continued from `initial` = ζ(from, θ).
    static func zeta(from start: Int64, to n: Int64, theta: Double, initial: Double) -> Double {
        var sum = initial
        var i = start
        while i < n {
            sum += 1 / pow(Double(i + 1), theta)
            i += 1
        }
        return sum
    }

    /// The next value for a population of `itemCount` (which may grow, as in YCSB's latest).
    mutating func next(itemCount: Int64, using rng: inout SeededGenerator) -> Int64 {
        if itemCount > countForZeta {
            // YCSB grows ζ incrementally and keeps `items` (not itemCount) in η; kept as-is.
            zetan = Self.zeta(from: countForZeta, to: itemCount, theta: theta, initial: zetan)
            eta = (1 - pow(2 / Double(items), 1 - theta)) / (1 - zeta2theta / zetan)
            countForZeta = itemCount
        }
        let u = rng.nextDouble()
        let uz = u * zetan
        if uz < 1 { return base }
        if uz < 1 + pow(0.5, theta) { return base + 1 }
        return base + Int64(Double(itemCount) * pow(eta * u - eta + 1, alpha))
    }

    mutating func next(using rng: inout SeededGenerator) -> Int64 {
        next(itemCount: items, using: &rng)
    }
}

/// YCSB's default `requestdistribution=zipfian`: a zipfian over 10¹⁰ items, hashed (FNV-1a 64)
/// onto `min…max`, so popular keys are spread over the key space instead of clustered.
struct ScrambledZipfianGenerator {
    /// YCSB's ζ(10¹⁰, 0.99), precomputed there too.
    static let itemCount: Int64 = 10_000_000_000
    static let zetan = 26.46902820178302

    let min: Int64
    let count: Int64
    private var zipfian: ZipfianGenerator

    init(min: Int64, max: Int64) {
        self.min = min
        count = max - min + 1
        zipfian = ZipfianGenerator(min: 0, max: Self.itemCount, zetan: Self.zetan)
    }

    mutating func next(using rng: inout SeededGenerator) -> Int64 {
        let value = zipfian.next(using: &rng)
        return min + Int64(Self.fnvHash64(value) % UInt64(count))
    }

    /// YCSB's `Utils.fnvhash64`, including its `Math.abs` of the signed result.
    static func fnvHash64(_ value: Int64) -> UInt64 {
        var hash: Int64 = Int64(bitPattern: 0xCBF2_9CE4_8422_2325)
        var rest = value
        for _ in 0..<8 {
            hash ^= rest & 0xFF
            rest >>= 8
            hash = hash &* 1_099_511_628_211
        }
        return hash.magnitude
    }
}

/// YCSB's `requestdistribution=latest` (workload D): recent inserts are the most popular.
struct SkewedLatestGenerator {
    private var zipfian: ZipfianGenerator

    /// - Parameter latest: the last id inserted so far.
    init(latest: Int64) {
        zipfian = ZipfianGenerator(min: 0, max: latest - 1)
    }

    mutating func next(latest: Int64, using rng: inout SeededGenerator) -> Int64 {
        latest - zipfian.next(itemCount: latest, using: &rng)
    }
}
