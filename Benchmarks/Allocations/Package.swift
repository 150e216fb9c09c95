// swift-tools-version: 6.1
import PackageDescription

// Allocation and leak budgets of Huddle's hot paths (docs/security.md §5 I2), measured with package-benchmark's
// malloc interposer. A package of its own, so the main package never builds the interposer; it depends on Huddle
// by path. Run from this folder:
//
//   swift package --disable-sandbox benchmark                      # print the figures
//   swift package --disable-sandbox benchmark thresholds check     # fail if over the budgets in Thresholds/
//
// See BENCHMARKS.md ("Allocations").
let package = Package(
    name: "HuddleAllocations",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Huddle", path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "HuddleAllocations",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Huddle", package: "Huddle"),
                .product(name: "HuddleTransport", package: "Huddle"),
                .product(name: "HuddleWire", package: "Huddle"),
                .product(name: "HuddleDNS", package: "Huddle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/HuddleAllocations",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
