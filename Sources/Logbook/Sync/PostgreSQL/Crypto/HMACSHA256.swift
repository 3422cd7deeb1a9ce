/// HMAC with SHA-256 (RFC 2104, with the test vectors of RFC 4231).
///
/// Keyed once: the inner and outer hash states after the padded key are kept, so each
/// ``authenticate(_:)`` costs the message's blocks plus two, which is what makes
/// ``PBKDF2`` cheap.
struct HMACSHA256 {
    private var inner = SHA256()
    private var outer = SHA256()

    /// A MAC keyed with `key` (a key longer than a block is hashed first, RFC 2104 §2).
    init(key: some Collection<UInt8>) {
        var block = key.count > SHA256.blockLength ? SHA256.hash(key) : Array(key)
        block.append(contentsOf: repeatElement(0, count: SHA256.blockLength - block.count))
        inner.update(block.map { $0 ^ 0x36 })
        outer.update(block.map { $0 ^ 0x5c })
    }

    /// The 32-byte MAC of `message`.
    func authenticate(_ message: some Sequence<UInt8>) -> [UInt8] {
        var inner = self.inner
        inner.update(message)
        var outer = self.outer
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// The 32-byte MAC of `message` under `key`.
    static func authenticationCode(key: some Collection<UInt8>, message: some Sequence<UInt8>)
        -> [UInt8]
    {
        HMACSHA256(key: key).authenticate(message)
    }
}

/// PBKDF2 with HMAC-SHA-256 as its pseudorandom function (RFC 8018 §5.2; test vectors of RFC
/// 7914 §11 and the RFC 6070 inputs): what SCRAM-SHA-256 calls `Hi()`.
enum PBKDF2 {
    /// `keyLength` bytes derived from `password` and `salt` with `iterations` rounds.
    ///
    /// - Complexity: two SHA-256 blocks per iteration per 32 bytes of key.
    static func sha256(
        password: some Collection<UInt8>, salt: [UInt8], iterations: Int, keyLength: Int
    )
        -> [UInt8]
    {
        let mac = HMACSHA256(key: password)
        var key: [UInt8] = []
        key.reserveCapacity(keyLength)
        var blockIndex: UInt32 = 1
        while key.count < keyLength {
            var u = mac.authenticate(
                salt + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: blockIndex >> $0) })
            var t = u
            for _ in 1..<max(iterations, 1) {
                u = mac.authenticate(u)
                for i in 0..<t.count { t[i] ^= u[i] }
            }
            key.append(contentsOf: t.prefix(keyLength - key.count))
            blockIndex += 1
        }
        return key
    }
}
