/// A number of bytes a second: a bandwidth limit as `--limit-rate` and `config.toml`'s `limit-rate` take it
/// (docs/design.md, "Bandwidth limits"). Written like curl's: a number with an optional `K`, `M` or `G` (1024,
/// 1024², 1024³), an optional `B` or `iB` and `/s` — `500K`, `1.5M`, `2MiB/s`, `800000`.
public struct ByteRate: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The least a limit may be (1 KiB/s): below it one transfer chunk would take a minute.
    public static let minimum = ByteRate(bytesPerSecond: 1024)
    /// The most a limit may be (1 TiB/s).
    public static let maximum = ByteRate(bytesPerSecond: 1 << 40)

    /// How a rate is written, for messages that refuse one.
    public static let spelling = "bytes a second: 500K, 2M, 1.5M (K = 1024 bytes), from 1K to 1024G"

    public let bytesPerSecond: UInt64

    public init(bytesPerSecond: UInt64) { self.bytesPerSecond = bytesPerSecond }

    /// The rate `text` spells; nil when it is not a rate or lies outside ``minimum`` … ``maximum``.
    public init?(parsing text: String) {
        var rest = Substring(text.lowercased())
        if rest.hasSuffix("/s") { rest = rest.dropLast(2) }
        if rest.hasSuffix("ib") { rest = rest.dropLast(2) } else if rest.hasSuffix("b") { rest = rest.dropLast() }
        let scale: Double
        switch rest.last {
        case "k": scale = 1024
        case "m": scale = 1024 * 1024
        case "g": scale = 1024 * 1024 * 1024
        default: scale = 1
        }
        if scale > 1 { rest = rest.dropLast() }
        guard !rest.isEmpty, rest.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let number = Double(rest), number.isFinite
        else { return nil }
        let bytes = (number * scale).rounded()
        guard bytes >= Double(Self.minimum.bytesPerSecond), bytes <= Double(Self.maximum.bytesPerSecond) else {
            return nil
        }
        self.bytesPerSecond = UInt64(bytes)
    }

    /// How long `bytes` take at this rate.
    public func duration(of bytes: Int) -> Duration {
        let whole = UInt64(max(bytes, 0))
        let seconds = whole / bytesPerSecond
        let rest = whole % bytesPerSecond
        return .seconds(Int64(seconds)) + .nanoseconds(Int64(rest * 1_000_000_000 / bytesPerSecond))
    }

    /// As people read it: `500 KiB/s`, `1.5 MiB/s`.
    public var description: String {
        let units: [(String, UInt64)] = [("GiB/s", 1 << 30), ("MiB/s", 1 << 20), ("KiB/s", 1 << 10)]
        for (unit, size) in units where bytesPerSecond >= size {
            let tenths = (bytesPerSecond * 10 + size / 2) / size
            return tenths % 10 == 0 ? "\(tenths / 10) \(unit)" : "\(tenths / 10).\(tenths % 10) \(unit)"
        }
        return "\(bytesPerSecond) B/s"
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.bytesPerSecond < rhs.bytesPerSecond }
}
