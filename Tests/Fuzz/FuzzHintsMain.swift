// libFuzzer entry point for the `hints` target (see README.md). Compiled into the LogStore module
// with the decoder fuzz bodies in Tests/LogStoreTests/Support.

@_cdecl("LLVMFuzzerTestOneInput")
public func logbookFuzzHints(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let problems = fuzzHints(Array(UnsafeBufferPointer(start: data, count: size)))
    if let problem = problems.first { fatalError("hints: \(problem)") }  // a finding
    return 0
}
