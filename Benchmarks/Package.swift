// swift-tools-version: 6.0
// The benchmark suite: Logbook and SQLite on identical workloads (issue 6). A package of its own
// so the root package stays free of outside dependencies. Run from the repository root:
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
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "logbook-bench",
            dependencies: [
                "CSQLite",
                .product(name: "LogStore", package: "Logbook"),
                .product(name: "Logbook", package: "Logbook"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
