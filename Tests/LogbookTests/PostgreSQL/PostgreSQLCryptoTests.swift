import Foundation
import TestSupport
import Testing

@testable import Logbook

/// The client's own SHA-256, HMAC, PBKDF2, MD5, SASLprep and SCRAM against the published
/// vectors of their RFCs.
@Suite struct PostgreSQLCryptoTests {
    static func hex(_ bytes: [UInt8]) -> String { PostgreSQLCell.hex(bytes) }
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }

    /// FIPS 180-2 appendix B and RFC 6234 §8.5: the one-block, two-block and million-`a`
    /// messages, and the empty one.
    @Test func sha256MatchesTheFIPSExamples() {
        #expect(
            Self.hex(SHA256.hash("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Self.hex(SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Self.hex(SHA256.hash([UInt8]()))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Self.hex(SHA256.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// The same message fed in pieces of every size gives the same digest (the block
    /// boundary handling of `update`).
    @Test func sha256IsTheSameWhateverThePieces() {
        let message = Array((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let whole = SHA256.hash(message)
        for piece in [1, 3, 55, 56, 63, 64, 65, 127, 128, 200] {
            var hasher = SHA256()
            var rest = message[...]
            while !rest.isEmpty {
                hasher.update(rest.prefix(piece))
                rest = rest.dropFirst(piece)
            }
            #expect(hasher.finalize() == whole, "pieces of \(piece)")
        }
    }

    /// RFC 4231 §4.2–4.8, test cases 1 to 7 (case 5 truncated to 128 bits).
    @Test func hmacSHA256MatchesRFC4231() {
        let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
            (
                [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
            ),
            (
                Array(1...25), [UInt8](repeating: 0xcd, count: 50),
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
            ),
            (
                [UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8),
                "a3b6167473100ee06e0c796c2955552b"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array(
                    ("This is a test using a larger than block-size key and a larger than "
                        + "block-size data. The key needs to be hashed before being used by the "
                        + "HMAC algorithm.").utf8),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
            ),
        ]
        for (number, test) in cases.enumerated() {
            let mac = Self.hex(HMACSHA256.authenticationCode(key: test.key, message: test.data))
            #expect(mac.hasPrefix(test.mac), "RFC 4231 test case \(number + 1)")
        }
    }

    /// RFC 7914 §11 (PBKDF2-HMAC-SHA256, the scrypt RFC's vectors) and the RFC 6070 inputs with
    /// HMAC-SHA-256. RFC 7914's 80,000-iteration vector runs in the long tier only: 160,000
    /// HMACs were 1.5 s of CPU in a debug build; the 4,096-iteration vectors check the rounds
    /// in the default tier.
    @Test func pbkdf2MatchesRFC7914AndRFC6070Inputs() {
        typealias Case = (password: String, salt: String, iterations: Int, length: Int, key: String)
        let long: [Case] = [
            (
                "Password", "NaCl", 80000, 64,
                "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
                    + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"
            )
        ]
        let cases: [Case] = [
            (
                "passwd", "salt", 1, 64,
                "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                    + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
            ),
            (
                "password", "salt", 1, 32,
                "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"
            ),
            (
                "password", "salt", 2, 32,
                "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"
            ),
            (
                "password", "salt", 4096, 32,
                "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"
            ),
            (
                "passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 40,
                "348c89dbcbd32b2f32d814b8116e84cf2b17347ebc1800181c4e2a1fb8dd53e1c635518c7dac47e9"
            ),
            ("pass\0word", "sa\0lt", 4096, 16, "89b69d0516f829893c696226650a8687"),
        ]
        for test in cases + TestTier.pick(quick: [], long: long) {
            let key = PBKDF2.sha256(
                password: Array(test.password.utf8), salt: Array(test.salt.utf8),
                iterations: test.iterations, keyLength: test.length)
            #expect(Self.hex(key) == test.key, "\(test.password)/\(test.salt)/\(test.iterations)")
        }
    }

    /// RFC 1321 appendix A.5, the test suite.
    @Test func md5MatchesRFC1321() {
        let suite = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "d174ab98d277d9f5a5611c2c9f419d9f"
            ),
            (
                String(repeating: "1234567890", count: 8),
                "57edf4a22be3c955ac49da2e2107b67a"
            ),
        ]
        for (message, digest) in suite {
            #expect(Self.hex(MD5.hash(message.utf8)) == digest, "\"\(message)\"")
        }
    }

    /// RFC 7677 §3: the SCRAM-SHA-256 exchange for user "user", password "pencil".
    @Test func scramMatchesTheRFC7677Exchange() throws {
        var client = SCRAMClient(user: "user", password: "pencil", nonce: "rOprNGfwEbeRWgbNEkqO")
        #expect(client.clientFirstMessage == "n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
        let final = try client.clientFinalMessage(
            serverFirst:
                "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
        )
        #expect(
            final
                == "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        try client.verify(serverFinal: "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
        // A server that does not know the password cannot produce the signature.
        #expect(throws: SCRAMClient.Failure.self) {
            try client.verify(serverFinal: "v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
        }
        #expect(throws: SCRAMClient.Failure.self) {
            try client.verify(serverFinal: "e=invalid-proof")
        }
    }

    /// The server's first message is checked before any work: a nonce that does not extend
    /// the client's, a missing salt, an iteration count that would make the client spin.
    @Test func scramRefusesABadServerChallenge() {
        let bad = [
            "r=someoneElse123,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
            "r=abc,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
            "r=abcdef,s=***,i=4096",
            "r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",
            "r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=2147483647",
            "m=ext,r=abcdef,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
            "",
        ]
        for serverFirst in bad {
            var client = SCRAMClient(password: "pencil", nonce: "abc")
            #expect(throws: SCRAMClient.Failure.self, "\(serverFirst)") {
                _ = try client.clientFinalMessage(serverFirst: serverFirst)
            }
        }
    }

    /// RFC 4013 §3's examples: mapped to nothing, NFKC, and the prohibited and bidi cases,
    /// which (as in PostgreSQL) fall back to the raw bytes.
    @Test func saslprepFollowsRFC4013() {
        #expect(SASLprep.prepare("I\u{00AD}X") == Array("IX".utf8))
        #expect(SASLprep.prepare("user") == Array("user".utf8))
        #expect(SASLprep.prepare("USER") == Array("USER".utf8))
        #expect(SASLprep.prepare("\u{00AA}") == Array("a".utf8))
        #expect(SASLprep.prepare("\u{2168}") == Array("IX".utf8))
        #expect(SASLprep.prepare("a\u{00A0}b") == Array("a b".utf8))
        #expect(SASLprep.prepare("pa\u{0308}ss") == Array("p\u{00E4}ss".utf8))
        // Prohibited (a control character, a private-use one) and bidi failures: raw bytes.
        #expect(SASLprep.prepare("\u{0007}") == [7])
        #expect(SASLprep.prepare("\u{E000}\u{00AD}") == Array("\u{E000}\u{00AD}".utf8))
        #expect(SASLprep.prepare("\u{0627}\u{0031}") == Array("\u{0627}\u{0031}".utf8))
        #expect(SASLprep.prepare("\u{0627}\u{0031}\u{0628}") == Array("\u{0627}1\u{0628}".utf8))
    }

    /// The nonce comes from the system generator: the right size, and never twice the same.
    @Test func nonceIsFreshEachTime() throws {
        let a = try #require(SCRAMClient.makeNonce())
        let b = try #require(SCRAMClient.makeNonce())
        #expect(a != b)
        #expect(Data(base64Encoded: a)?.count == 18)
        #expect(try #require(SecureRandom.bytes(1000)).count == 1000)
    }
}
