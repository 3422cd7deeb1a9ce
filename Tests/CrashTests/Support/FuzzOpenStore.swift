// The body of the `open` fuzz target (Tests/Fuzz/README.md): shared by the libFuzzer build, which
// compiles this file into the LogStore module with -D FUZZING, and by FuzzCorpusTests, which
// replays the committed corpus on every `swift test`. Public API only.
import Foundation

#if !FUZZING
    import LogStore
#endif

/// Makes a store from arbitrary bytes and uses it every way a reader and a writer can: it must
/// give typed errors or answers, never crash, hang or allocate without bound.
///
/// Input: `flags: u8, hintLength: u16 (LE), hint: [hintLength]u8, segment: [rest]u8`. Flag bit 0
/// puts a valid segment header before `segment` (so the frames are what gets fuzzed); bit 1
/// opens in salvage mode; bit 2 writes `hint` as the segment's hint file; bit 3 also compacts.
/// Returns the errors met (for the replay test to check they are ``LogStoreError``s).
@discardableResult
func fuzzOpenStore(_ input: [UInt8], in directory: String) -> [Error] {
    guard input.count >= 3 else { return [] }
    let flags = input[0]
    let hintLength = min(Int(input[1]) | Int(input[2]) << 8, input.count - 3)
    let hint = Array(input[3..<3 + hintLength])
    var segment = Array(input[(3 + hintLength)...])
    if flags & 1 != 0 {
        // FORMAT.md's example header: "LBKSEG\r\n", version 1, flags 0, order 0x10000, CRC.
        segment =
            [
                0x4C, 0x42, 0x4B, 0x53, 0x45, 0x47, 0x0D, 0x0A, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
                0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFB, 0x2E, 0x57, 0xD6,
            ] + segment
    }
    let manager = FileManager.default
    try? manager.removeItem(atPath: directory)
    try? manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
    _ = manager.createFile(atPath: directory + "/0000000000010000.seg", contents: Data(segment))
    if flags & 4 != 0 {
        _ = manager.createFile(atPath: directory + "/0000000000010000.hint", contents: Data(hint))
    }
    var errors: [Error] = []
    var options = LogStoreOptions()
    options.salvage = flags & 2 != 0
    options.autoCompactionDeadFraction = nil
    options.segmentSize = 4096
    func readEverything(_ store: LogStore) throws {
        for keyspace in try store.keyspaces() {
            var keys = 0
            try store.forEach(in: keyspace) { key, value in
                keys += 1
                _ = key.count + value.count
            }
            for key in try store.keys(in: keyspace).prefix(16) {
                _ = try store.get(key, in: keyspace)
            }
            _ = keys == (try store.count(in: keyspace))
        }
        _ = try store.stats()
    }
    var readOnly = options
    readOnly.readOnly = true
    do {
        let store = try LogStore(path: directory, options: readOnly)
        try readEverything(store)
        try store.close()
    } catch {
        errors.append(error)
    }
    do {
        let store = try LogStore(path: directory, options: options)
        try readEverything(store)
        try store.put([1, 2, 3], for: [4], in: "fuzz")
        if flags & 8 != 0 { try store.compact() }
        try store.close()
        let again = try LogStore(path: directory, options: options)
        try readEverything(again)
        try again.close()
    } catch {
        errors.append(error)
    }
    return errors
}
