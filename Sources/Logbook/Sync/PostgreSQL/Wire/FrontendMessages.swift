/// The messages the client sends (protocol version 3, "Message Formats" in PostgreSQL's
/// documentation), appended to one buffer so a request goes out in one write.
///
/// Integers are big-endian; a string is UTF-8 ending in a NUL, so it may not hold one.
struct FrontendMessages {
    private(set) var bytes: [UInt8] = []

    /// The most a message may hold: PostgreSQL refuses longer ones (1 GiB less one byte).
    static let maximumMessageBytes = (1 << 30) - 1

    var isEmpty: Bool { bytes.isEmpty }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: bytes.count <= 1 << 20) }

    // MARK: Startup and login

    /// StartupMessage, protocol 3.0, with `parameters` (`user`, `database`, …).
    mutating func startup(_ parameters: [(String, String)]) throws {
        let start = bytes.count
        int32(0)
        int32(196_608)  // 3 << 16 | 0
        for (name, value) in parameters {
            try string(name)
            try string(value)
        }
        bytes.append(0)
        try finish(from: start)
    }

    /// PasswordMessage: a clear-text or MD5 password, NUL-terminated.
    mutating func password(_ password: [UInt8]) throws {
        let start = begin("p")
        guard !password.contains(0) else {
            throw invalid("the password holds a NUL character")
        }
        bytes.append(contentsOf: password)
        bytes.append(0)
        try finish(from: start)
    }

    /// SASLInitialResponse: the mechanism and the client's first message.
    mutating func saslInitialResponse(mechanism: String, _ data: [UInt8]) throws {
        let start = begin("p")
        try string(mechanism)
        int32(Int32(data.count))
        bytes.append(contentsOf: data)
        try finish(from: start)
    }

    /// SASLResponse: the next message of the exchange.
    mutating func saslResponse(_ data: [UInt8]) throws {
        let start = begin("p")
        bytes.append(contentsOf: data)
        try finish(from: start)
    }

    // MARK: Queries

    /// Query: the simple protocol (one or more statements separated by semicolons).
    mutating func query(_ sql: String) throws {
        let start = begin("Q")
        try string(sql)
        try finish(from: start)
    }

    /// Parse: `sql` as the prepared statement `name` ("" is the unnamed one), with the
    /// parameter types given (0 lets the server infer one).
    mutating func parse(name: String, _ sql: String, parameterTypes: [UInt32]) throws {
        guard parameterTypes.count <= Int(Int16.max) else {
            throw invalid("more than \(Int16.max) parameters")
        }
        let start = begin("P")
        try string(name)
        try string(sql)
        int16(Int16(parameterTypes.count))
        for type in parameterTypes { int32(Int32(bitPattern: type)) }
        try finish(from: start)
    }

    /// Bind: the unnamed portal over `statement`, with parameters in their own formats, and
    /// all results in `resultFormat`.
    mutating func bind(
        statement: String, _ parameters: [EncodedParameter], resultFormat: PostgreSQLFormat
    ) throws {
        guard parameters.count <= Int(Int16.max) else {
            throw invalid("more than \(Int16.max) parameters")
        }
        let start = begin("B")
        bytes.append(0)  // the unnamed portal
        try string(statement)
        int16(Int16(parameters.count))
        for parameter in parameters { int16(parameter.format.rawValue) }
        int16(Int16(parameters.count))
        for parameter in parameters {
            if let value = parameter.bytes {
                int32(Int32(clamping: value.count))
                bytes.append(contentsOf: value)
            } else {
                int32(-1)
            }
        }
        int16(1)
        int16(resultFormat.rawValue)
        try finish(from: start)
    }

    /// Describe: the unnamed portal (`"P"`) or a prepared statement (`"S"`).
    mutating func describe(_ kind: Character, name: String) throws {
        let start = begin("D")
        bytes.append(kind.asciiValue ?? 0)
        try string(name)
        try finish(from: start)
    }

    /// Execute: the unnamed portal, all rows.
    mutating func execute() throws {
        let start = begin("E")
        bytes.append(0)
        int32(0)
        try finish(from: start)
    }

    /// Close: a prepared statement.
    mutating func closeStatement(_ name: String) throws {
        let start = begin("C")
        bytes.append(UInt8(ascii: "S"))
        try string(name)
        try finish(from: start)
    }

    /// Sync: ends an extended-protocol request; the server answers ReadyForQuery.
    mutating func sync() { empty("S") }

    /// Terminate: the polite goodbye before closing the socket.
    mutating func terminate() { empty("X") }

    // MARK: COPY

    /// CopyData: a chunk of COPY FROM STDIN input.
    mutating func copyData(_ data: some Collection<UInt8>) throws {
        let start = begin("d")
        bytes.append(contentsOf: data)
        try finish(from: start)
    }

    /// CopyDone: the end of COPY FROM STDIN input.
    mutating func copyDone() { empty("c") }

    /// CopyFail: abandons COPY FROM STDIN, with the reason the server reports back.
    mutating func copyFail(_ reason: String) throws {
        let start = begin("f")
        try string(reason)
        try finish(from: start)
    }

    /// CancelRequest: sent alone on a new connection.
    static func cancelRequest(processID: Int32, secretKey: Int32) -> [UInt8] {
        var message = FrontendMessages()
        message.int32(16)
        message.int32(80_877_102)  // 1234 << 16 | 5678
        message.int32(processID)
        message.int32(secretKey)
        return message.bytes
    }

    // MARK: Encoding

    private mutating func begin(_ type: Character) -> Int {
        bytes.append(type.asciiValue ?? 0)
        let start = bytes.count
        int32(0)
        return start
    }

    private mutating func empty(_ type: Character) {
        bytes.append(type.asciiValue ?? 0)
        int32(4)
    }

    /// Writes the length of the message that started at `start`, or throws if it is too long
    /// (the caller then drops the whole buffer: nothing of it was sent).
    private mutating func finish(from start: Int) throws {
        let length = bytes.count - start
        guard length <= Self.maximumMessageBytes else {
            throw invalid("a message of \(length) bytes is over PostgreSQL's limit of 1 GiB")
        }
        let value = UInt32(length)
        bytes[start] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[start + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[start + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[start + 3] = UInt8(truncatingIfNeeded: value)
    }

    private mutating func string(_ text: String) throws {
        let utf8 = text.utf8
        if utf8.contains(0) { throw invalid("a string holds a NUL character") }
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    mutating func int16(_ value: Int16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    mutating func int32(_ value: Int32) {
        for shift: Int32 in [24, 16, 8, 0] {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    private func invalid(_ reason: String) -> LogbookError {
        .postgreSQL(.invalidRequest(reason: reason))
    }
}
