import Foundation
import LogStore
import TestSupport
import Testing

@Suite struct DumpTests {
    @Test func textDumpOfRawRecordsIsAlignedAndInLogOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("store")
        try Stores.people(at: path, binary: true)
        let result = try CLI.run(["dump", path])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                SEGMENT               OFFSET  SEQ  TYPE             KEYSPACE  KEY   VALUE
                0000000000010000.seg      41    1  define-keyspace  people
                0000000000010000.seg      50    1  put              people    "e1"  "Ann"
                0000000000010000.seg      59    1  put              people    "e2"  "Bo"
                0000000000010000.seg      84    2  delete           people    "e1"
                0000000000010000.seg     106    3  define-keyspace  blobs
                0000000000010000.seg     114    3  put              blobs     "k"   0x00ff

                """)
    }
}
