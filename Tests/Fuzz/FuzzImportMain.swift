// libFuzzer entry point for the `import` target (see README.md). Compiled with the logbook tool's
// sources (all but main.swift) and FuzzImport.swift.
import Foundation

private let scratch = "/dev/shm/logbook-fuzz-import-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func logbookFuzzImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let problems = fuzzImport(
        Array(UnsafeBufferPointer(start: data, count: size)), scratch: scratch)
    if let problem = problems.first { fatalError("import: \(problem)") }  // a finding
    return 0
}
