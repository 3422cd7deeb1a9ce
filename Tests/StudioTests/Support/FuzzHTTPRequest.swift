// The invariants of the HTTP request parser on arbitrary bytes: what the property tests check
// on seeded random input and what a libFuzzer main can check on its own (compiled with
// Sources/logbook/Studio/HTTP/HTTPRequest.swift and HTTPRequestParser.swift into one module,
// with -D FUZZING). Standard library only.

#if !FUZZING
    @testable import logbook
#endif

/// The parser's invariants broken by `bytes` (none: the parser is fine on them), checked under
/// small limits so that random input reaches every bound.
func fuzzHTTPRequest(_ bytes: [UInt8]) -> [String] {
    var limits = HTTPLimits()
    limits.requestLine = 64
    limits.head = 160
    limits.headerFields = 6
    limits.body = 48
    limits.parameters = 5
    var problems: [String] = []
    let result = HTTPRequestParser.parse(bytes, limits: limits)
    switch result {
    case .incomplete:
        // Never waits for more than a head and a body can hold.
        if bytes.count > limits.head + 4 + limits.body {
            problems.append("incomplete after \(bytes.count) bytes")
        }
    case .invalid(let error):
        if ![400, 413, 414, 431, 501, 505].contains(error.status) {
            problems.append("status \(error.status)")
        }
    case .request(let request, let consumed):
        if consumed <= 0 || consumed > bytes.count { problems.append("consumed \(consumed)") }
        if consumed > limits.head + 4 + limits.body { problems.append("took \(consumed) bytes") }
        problems += requestProblems(request, limits)
        // The request is in its own bytes: parsing them alone gives it again.
        if consumed > 0 && consumed <= bytes.count,
            HTTPRequestParser.parse(Array(bytes[..<consumed]), limits: limits) != result
        {
            problems.append("not the same alone")
        }
    }
    // Nothing is decided before its bytes arrive: a cut of the input is never a request or a
    // refusal that the whole input is not.
    for cut in [bytes.count / 3, bytes.count / 2, bytes.count - 1]
    where cut >= 0 && cut < bytes.count {
        let part = HTTPRequestParser.parse(Array(bytes[..<cut]), limits: limits)
        switch (part, result) {
        case (.incomplete, _): break
        case (.invalid, .invalid): break
        case (.request, .request):
            if part != result { problems.append("a cut at \(cut) is another request") }
        default: problems.append("a cut at \(cut) gives \(part), the whole \(result)")
        }
    }
    return problems
}

/// What every accepted request must be.
private func requestProblems(_ request: HTTPRequest, _ limits: HTTPLimits) -> [String] {
    var problems: [String] = []
    let token = Array("!#$%&'*+-.^_`|~".utf8)
    func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A)
                    || ($0 >= 0x61 && $0 <= 0x7A)
                    || token.contains($0)
            }
    }
    if !isToken(request.method) { problems.append("method \(request.method)") }
    if request.minorVersion != 0 && request.minorVersion != 1 { problems.append("version") }
    if !request.target.hasPrefix("/") { problems.append("target \(request.target)") }
    for segment in request.pathSegments {
        if segment == "." || segment == ".." { problems.append("dot segment") }
        if segment.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            problems.append("control character in a segment")
        }
    }
    if request.query.count > limits.parameters {
        problems.append("\(request.query.count) parameters")
    }
    if request.headers.count > limits.headerFields {
        problems.append("\(request.headers.count) fields")
    }
    for (name, value) in request.headers {
        if !isToken(name) || name != name.lowercased() { problems.append("field name \(name)") }
        if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            problems.append("line break in a field value")
        }
        if value.hasPrefix(" ") || value.hasSuffix(" ") { problems.append("untrimmed value") }
    }
    if request.headers.filter({ $0.name == "host" }).count > 1 { problems.append("two Hosts") }
    if request.headers.contains(where: { $0.name == "transfer-encoding" }) {
        problems.append("chunked")
    }
    let length = request.header("content-length").flatMap { Int($0) } ?? 0
    if request.body.count != length { problems.append("body \(request.body.count) of \(length)") }
    if request.body.count > limits.body { problems.append("body over the limit") }
    return problems
}
