// libFuzzer entry point for the `objects` target (see README.md). Compiled into the Logbook module
// with Tests/LogbookTests/Support/FuzzObjects.swift.
import Foundation

private let decoder = try! fuzzObjectsDecoder(at: "/dev/shm/logbook-fuzz-objects-\(getpid())")

@_cdecl("LLVMFuzzerTestOneInput")
public func logbookFuzzObjects(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let errors = fuzzObjects(Array(UnsafeBufferPointer(start: data, count: size)), decoder: decoder)
    if let error = errors.first { fatalError("not a LogbookError: \(error)") }  // a finding
    return 0
}
