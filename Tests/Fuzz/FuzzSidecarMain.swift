// libFuzzer entry point for the `sidecar` target (see README.md). Compiled into the Logbook module
// with Tests/LogbookTests/Support/FuzzSidecar.swift.
import Foundation

private let template = try! FuzzSidecarTemplate(
    directory: "/dev/shm/logbook-fuzz-sidecar-\(getpid())")

@_cdecl("LLVMFuzzerTestOneInput")
public func logbookFuzzSidecar(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let problems = fuzzSidecar(
        Array(UnsafeBufferPointer(start: data, count: size)), template: template)
    if let problem = problems.first { fatalError("sidecar: \(problem)") }  // a finding
    return 0
}
