// libFuzzer entry point for the `predicates` target (see README.md). Compiled into the Logbook
// module with Tests/LogbookTests/Support/FuzzPredicates.swift.

private let stores = try! FuzzPredicateStores()

@_cdecl("LLVMFuzzerTestOneInput")
public func logbookFuzzPredicates(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let problems = fuzzPredicates(
        Array(UnsafeBufferPointer(start: data, count: size)), stores: stores)
    if let problem = problems.first { fatalError("predicates: \(problem)") }  // a finding
    return 0
}
