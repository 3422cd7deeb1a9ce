// libFuzzer entry point for the `keysdir` target (see README.md). Compiled into the LogStore module
// with Tests/LogStoreTests/Support/FuzzKeyDirectory{,Load}.swift and ByteFileSystem.swift.

private let template = try! FuzzKeyDirectoryTemplate()

@_cdecl("LLVMFuzzerTestOneInput")
public func logbookFuzzKeyDirectory(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let problems = fuzzKeyDirectory(
        Array(UnsafeBufferPointer(start: data, count: size)), template: template)
    if let problem = problems.first { fatalError("keysdir: \(problem)") }  // a finding
    return 0
}
