// libFuzzer entry point for the `http` target (see README.md): the studio's HTTP request parser,
// compiled with the parser's two files and the invariants in
// Tests/StudioTests/Support/FuzzHTTPRequest.swift into one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func logbookFuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let problems = fuzzHTTPRequest(Array(UnsafeBufferPointer(start: data, count: size)))
    if let problem = problems.first { fatalError("http: \(problem)") }  // a finding
    return 0
}
