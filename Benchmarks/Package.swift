// swift-tools-version: 6.0
// The benchmark suite: Logbook against SQLite, LMDB, LevelDB and RocksDB on identical workloads
// (issues 6 and 36). A package of its own so the root package stays free of outside dependencies;
// the peers are Debian's system libraries (`.ci/bench-packages` installs them). Run from the
// repository root:
//   swift run -c release --package-path Benchmarks logbook-bench [workloads] [--num N] [--quick]
import PackageDescription

let package = Package(
    name: "LogbookBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "logbook-bench", targets: ["logbook-bench"])
    ],
    dependencies: [
        .package(name: "Logbook", path: "..")
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        // Debian's LevelDB ships no pkg-config file: the module map links it by name.
        .systemLibrary(name: "CLevelDB", providers: [.apt(["libleveldb-dev"])]),
        .systemLibrary(
            name: "CRocksDB", pkgConfig: "rocksdb", providers: [.apt(["librocksdb-dev"])]),
        .executableTarget(
            name: "logbook-bench",
            dependencies: [
                "CSQLite", "CLMDB", "CLevelDB", "CRocksDB",
                .product(name: "LogStore", package: "Logbook"),
                .product(name: "Logbook", package: "Logbook"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
