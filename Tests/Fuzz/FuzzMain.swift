// libFuzzer entry point for the `open` target; see README.md. Compiled into the LogStore module.
import Foundation

private let fuzzDirectory = "/dev/shm/logbook-fuzz-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func logbookFuzzOpen(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzOpenStore(Array(UnsafeBufferPointer(start: data, count: size)), in: fuzzDirectory)
    return 0
}
