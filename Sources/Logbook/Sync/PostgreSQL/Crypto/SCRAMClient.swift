import Foundation

/// The client side of SCRAM-SHA-256 (RFC 5802 with RFC 7677's hash), as PostgreSQL speaks
/// it: no channel binding (`n,,`, since this client has no TLS), and an empty user name, the
/// startup message having named the role. The password never leaves the client; the client
/// checks the server's signature, so a server that does not know the password is refused.
struct SCRAMClient {
    /// Why the exchange cannot go on, for ``PostgreSQLError/authentication(reason:)``.
    struct Failure: Error {
        let reason: String
    }

    /// The most iterations the client computes: more is a server making it spin.
    static let maximumIterations = 10_000_000

    private let password: [UInt8]
    private let clientNonce: String
    let clientFirstMessageBare: String
    /// The server signature to expect, once the final message is built.
    private var expectedServerSignature: [UInt8]?

    /// A client for `password` (SASLprep'd here) with `nonce` (printable ASCII, no comma).
    /// `user` is empty for PostgreSQL; RFC 7677's example names one.
    init(user: String = "", password: String, nonce: String) {
        self.password = SASLprep.prepare(password)
        clientNonce = nonce
        let name = user.replacingOccurrences(of: "=", with: "=3D")
            .replacingOccurrences(of: ",", with: "=2C")
        clientFirstMessageBare = "n=\(name),r=\(nonce)"
    }

    /// A fresh nonce: 18 random bytes from the system, in base64.
    static func makeNonce() -> String? {
        SecureRandom.bytes(18).map { Data($0).base64EncodedString() }
    }

    /// The client-first-message.
    var clientFirstMessage: String { "n,," + clientFirstMessageBare }

    /// The client-final-message answering `serverFirst`.
    ///
    /// - Throws: ``Failure`` if the server's message is malformed, its nonce does not extend
    ///   the client's, or its iteration count is out of range.
    mutating func clientFinalMessage(serverFirst: String) throws -> String {
        let attributes = serverFirst.split(separator: ",", omittingEmptySubsequences: false)
        guard attributes.count >= 3, attributes[0].hasPrefix("r="), attributes[1].hasPrefix("s="),
            attributes[2].hasPrefix("i=")
        else {
            throw Failure(reason: "the server's SCRAM challenge is malformed")
        }
        let nonce = String(attributes[0].dropFirst(2))
        guard nonce.hasPrefix(clientNonce), nonce.count > clientNonce.count,
            nonce.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != 0x2C })
        else {
            throw Failure(reason: "the server's SCRAM nonce does not extend the client's")
        }
        guard let salt = Data(base64Encoded: String(attributes[1].dropFirst(2))), !salt.isEmpty
        else { throw Failure(reason: "the server's SCRAM salt is not base64") }
        guard let iterations = Int(attributes[2].dropFirst(2)),
            (1...Self.maximumIterations).contains(iterations)
        else {
            throw Failure(
                reason: "the server's SCRAM iteration count is not between 1 and "
                    + "\(Self.maximumIterations)")
        }
        let saltedPassword = PBKDF2.sha256(
            password: password, salt: Array(salt), iterations: iterations, keyLength: 32)
        let clientKey = HMACSHA256.authenticationCode(
            key: saltedPassword, message: Array("Client Key".utf8))
        let storedKey = SHA256.hash(clientKey)
        let withoutProof = "c=biws,r=\(nonce)"  // biws: base64 of "n,,"
        let authMessage = Array("\(clientFirstMessageBare),\(serverFirst),\(withoutProof)".utf8)
        let clientSignature = HMACSHA256.authenticationCode(key: storedKey, message: authMessage)
        let proof = zip(clientKey, clientSignature).map { $0 ^ $1 }
        let serverKey = HMACSHA256.authenticationCode(
            key: saltedPassword, message: Array("Server Key".utf8))
        expectedServerSignature = HMACSHA256.authenticationCode(
            key: serverKey, message: authMessage)
        return "\(withoutProof),p=\(Data(proof).base64EncodedString())"
    }

    /// Checks the server-final-message.
    ///
    /// - Throws: ``Failure`` if the server reports an error or its signature is wrong.
    func verify(serverFinal: String) throws {
        if serverFinal.hasPrefix("e=") {
            throw Failure(
                reason: "the server refused the SCRAM proof (\(serverFinal.dropFirst(2)))")
        }
        guard let expected = expectedServerSignature, serverFinal.hasPrefix("v="),
            let signature = Data(
                base64Encoded: String(
                    serverFinal.dropFirst(2).prefix { $0 != "," }))
        else { throw Failure(reason: "the server's final SCRAM message is malformed") }
        // Constant time: compare every byte whatever the first difference.
        var difference: UInt8 = signature.count == expected.count ? 0 : 1
        for (a, b) in zip(signature, expected) { difference |= a ^ b }
        guard difference == 0 else {
            throw Failure(
                reason: "the server could not prove it knows the password (wrong SCRAM "
                    + "signature): it may not be the server you meant")
        }
    }
}
