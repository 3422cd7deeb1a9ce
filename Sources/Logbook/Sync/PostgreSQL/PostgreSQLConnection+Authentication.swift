extension PostgreSQLConnection {
    typealias AuthenticationMethod = PostgreSQLConfiguration.AuthenticationMethod

    /// The login: answers each Authentication request until AuthenticationOk, with a method
    /// ``PostgreSQLConfiguration/allowedAuthentication`` accepts.
    func authenticate(deadline: WireDeadline?) throws {
        var scram: SCRAMClient?
        var scramFinished = false
        var method = AuthenticationMethod.none
        while true {
            var message = try receive(until: deadline)
            switch message.type {
            case UInt8(ascii: "R"): break
            case UInt8(ascii: "E"):
                throw LogbookError.postgreSQL(.server(try message.serverError()))
            case UInt8(ascii: "v"):
                try negotiateProtocolVersion(message)
                continue
            default: throw unexpected(message, "the login")
            }
            let request = try message.int32()
            switch request {
            case 0:  // AuthenticationOk
                if scram != nil && !scramFinished {
                    throw failure("the server let the client in before finishing SCRAM")
                }
                try allow(method)
                return
            case 3:  // AuthenticationCleartextPassword
                method = .password
                try allow(method)
                let password = try loginPassword()
                try send { try $0.password(Array(password.utf8)) }
            case 5:  // AuthenticationMD5Password
                method = .md5
                try allow(method)
                let salt = try message.bytes(4)
                let password = try loginPassword()
                let inner = PostgreSQLCell.hex(
                    MD5.hash(Array((password + configuration.user).utf8)))
                let outer = PostgreSQLCell.hex(MD5.hash(Array(inner.utf8) + salt))
                try send { try $0.password(Array(("md5" + outer).utf8)) }
            case 10:  // AuthenticationSASL
                method = .scramSHA256
                try allow(method)
                var mechanisms: [String] = []
                while message.remaining > 1 { mechanisms.append(try message.string()) }
                guard mechanisms.contains("SCRAM-SHA-256") else {
                    throw failure(
                        "the server offers only \(mechanisms.joined(separator: ", ")), which "
                            + "needs TLS or is unknown to this client")
                }
                guard let nonce = SCRAMClient.makeNonce() else {
                    throw failure("the system gave no secure random bytes for the SCRAM nonce")
                }
                let client = SCRAMClient(password: try loginPassword(), nonce: nonce)
                scram = client
                try send {
                    try $0.saslInitialResponse(
                        mechanism: "SCRAM-SHA-256", Array(client.clientFirstMessage.utf8))
                }
            case 11:  // AuthenticationSASLContinue
                guard var client = scram, !scramFinished else {
                    throw message.violation("a SASL challenge outside a SASL exchange")
                }
                let serverFirst = String(decoding: message.rest(), as: UTF8.self)
                let final: String
                do {
                    final = try client.clientFinalMessage(serverFirst: serverFirst)
                } catch let error as SCRAMClient.Failure {
                    throw failure(error.reason)
                }
                scram = client
                try send { try $0.saslResponse(Array(final.utf8)) }
            case 12:  // AuthenticationSASLFinal
                guard let client = scram, !scramFinished else {
                    throw message.violation("a SASL outcome outside a SASL exchange")
                }
                do {
                    try client.verify(serverFinal: String(decoding: message.rest(), as: UTF8.self))
                } catch let error as SCRAMClient.Failure {
                    throw failure(error.reason)
                }
                scramFinished = true
            case 2, 6, 7, 8, 9:
                let names = [
                    2: "Kerberos V5", 6: "SCM credentials", 7: "GSSAPI", 8: "SSPI", 9: "GSSAPI",
                ]
                throw failure(
                    "the server asks for \(names[Int(request)] ?? "?"), which this client does "
                        + "not speak; set the role to scram-sha-256 in pg_hba.conf")
            default:
                throw message.violation("an unknown authentication request \(request)")
            }
        }
    }

    /// Refuses `method` unless the configuration accepts it.
    private func allow(_ method: AuthenticationMethod) throws {
        guard let allowed = configuration.allowedAuthentication, !allowed.contains(method) else {
            return
        }
        let what =
            method == .none
            ? "lets the client in without a password" : "asks for \(method.rawValue)"
        throw failure(
            "the server \(what), which require_auth does not allow (it allows "
                + "\(allowed.map(\.rawValue).sorted().joined(separator: ", ")))")
    }

    /// The password to log in with: the configured one, else the password file's.
    private func loginPassword() throws -> String {
        if let password = configuration.password { return password.text }
        var note = ""
        if let path = configuration.passwordFile {
            switch PasswordFile.password(at: path, for: configuration) {
            case .found(let password): return password
            case .ignored(let reason): note = " (\(reason))"
            case .notFound: break
            }
        }
        throw failure(
            "the server asks for a password and none was given: put it in the URL, in "
                + "PGPASSWORD, or in ~/.pgpass\(note)")
    }

    private func failure(_ reason: String) -> LogbookError {
        .postgreSQL(.authentication(reason: reason))
    }
}
