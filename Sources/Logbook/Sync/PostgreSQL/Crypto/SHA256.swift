/// SHA-256 (FIPS 180-4 §6.2), written here so the PostgreSQL client's SCRAM-SHA-256
/// authentication needs no outside library. Incremental: ``update(_:)`` any number of times,
/// then ``finalize()``.
///
/// A value type: copying a hasher copies its state, which is how ``HMACSHA256`` reuses the
/// keyed inner and outer states. Not for secrets at rest; constant time is not a goal here
/// beyond what the algorithm gives.
struct SHA256 {
    /// The digest length in bytes.
    static let digestLength = 32
    /// The block length in bytes.
    static let blockLength = 64

    /// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the
    /// first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4,
        0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe,
        0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f,
        0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da, 0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
        0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc,
        0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85, 0xa2bf_e8a1, 0xa81a_664b,
        0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070, 0x19a4_c116,
        0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7,
        0xc671_78f2,
    ]

    /// FIPS 180-4 §5.3.3: the initial hash value.
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab,
        0x5be0_cd19,
    ]
    /// Bytes not yet compressed (fewer than a block).
    private var pending: [UInt8] = []
    /// Blocks compressed so far.
    private var blocks: UInt64 = 0

    init() { pending.reserveCapacity(Self.blockLength) }

    /// The digest of `bytes`.
    static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Adds `bytes` to the message.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if done == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    /// Adds `bytes` to the message: whole blocks straight from the buffer, the rest kept.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        if !pending.isEmpty {
            let take = min(Self.blockLength - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            offset = take
            guard pending.count == Self.blockLength else { return }
            compressPending()
        }
        while bytes.count - offset >= Self.blockLength {
            Self.compress(&state, UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 64]))
            blocks &+= 1
            offset += Self.blockLength
        }
        pending.append(contentsOf: bytes[offset...])
    }

    /// The digest of everything added; the hasher is spent afterwards.
    mutating func finalize() -> [UInt8] {
        let bitLength = (blocks &* 64 &+ UInt64(pending.count)) &* 8
        // The pending bytes, 0x80, zeros and the 64-bit length end one block, or two when the
        // length does not fit after the pending bytes.
        let length = pending.count < Self.blockLength - 8 ? Self.blockLength : 2 * Self.blockLength
        var tail = [UInt8](repeating: 0, count: length)
        tail.withUnsafeMutableBytes { raw in
            pending.withUnsafeBytes { raw.copyMemory(from: $0) }
            raw[pending.count] = 0x80
            raw.storeBytes(of: bitLength.bigEndian, toByteOffset: length - 8, as: UInt64.self)
            var offset = 0
            while offset < length {
                Self.compress(
                    &state,
                    UnsafeRawBufferPointer(
                        UnsafeMutableRawBufferPointer(
                            rebasing: raw[offset..<offset + Self.blockLength])))
                offset += Self.blockLength
            }
        }
        pending.removeAll()
        var digest = [UInt8](repeating: 0, count: Self.digestLength)
        digest.withUnsafeMutableBytes { raw in
            var i = 0
            while i < 8 {
                raw.storeBytes(of: state[i].bigEndian, toByteOffset: i &* 4, as: UInt32.self)
                i &+= 1
            }
        }
        return digest
    }

    private mutating func compressPending() {
        pending.withUnsafeBytes { block in
            Self.compress(&state, block)
        }
        pending.removeAll(keepingCapacity: true)
        blocks &+= 1
    }

    /// FIPS 180-4 §6.2.2: one 64-byte block into `state`.
    private static func compress(_ state: inout [UInt32], _ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            // `while` loops, not `for in` ranges: unoptimized builds (the tests') spend most of
            // their time in a range's generic iterator otherwise.
            var t = 0
            while t < 16 {
                w[t] = UInt32(
                    bigEndian: block.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
                t &+= 1
            }
            while t < 64 {
                let s0 = rotate(w[t - 15], 7) ^ rotate(w[t - 15], 18) ^ (w[t - 15] &>> 3)
                let s1 = rotate(w[t - 2], 17) ^ rotate(w[t - 2], 19) ^ (w[t - 2] &>> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                t &+= 1
            }
            var a = state[0]
            var b = state[1]
            var c = state[2]
            var d = state[3]
            var e = state[4]
            var f = state[5]
            var g = state[6]
            var h = state[7]
            roundConstants.withUnsafeBufferPointer { k in
                var t = 0
                while t < 64 {
                    let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                    let choose = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choose &+ k[t] &+ w[t]
                    let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                    t &+= 1
                }
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
            state[5] &+= f
            state[6] &+= g
            state[7] &+= h
        }
    }

    @inline(__always)
    private static func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 {
        (x &>> n) | (x &<< (32 &- n))
    }
}
