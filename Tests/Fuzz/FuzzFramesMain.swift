// libFuzzer entry point for the `frames` target (see README.md). Compiled into the LogStore module
// with the decoder fuzz bodies in Tests/LogStoreTests/Support.

@_cdecl("LLVMFuzzerTestOneInput")
public func logbookFuzzFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let problems = fuzzFrames(Array(UnsafeBufferPointer(start: data, count: size)))
    if let problem = problems.first { fatalError("frames: \(problem)") }  // a finding
    return 0
}
