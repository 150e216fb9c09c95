/// The responses a multicast check keeps (``MDNSMulticastProbe``): each distinct response once, at most ``limit``
/// of them, and a count per interface of every one received. A check listens for seconds on a link where anyone
/// can send: what it keeps must not grow with what others send. Pure.
public struct MDNSResponseTally: Sendable {
    /// Distinct responses kept at most: far more devices than a link holds, few enough to group in no time.
    public static let defaultLimit = 256

    public let limit: Int
    /// The distinct responses, in arrival order.
    public private(set) var kept: [MDNSMulticastProbe.Response] = []
    /// Every response received, kept or not, by interface index.
    public private(set) var counts: [Int: Int] = [:]
    private var seen: Set<MDNSMulticastProbe.Response> = []

    public init(limit: Int = Self.defaultLimit) {
        self.limit = limit
    }

    /// Counts `response`, and keeps it if it is new and there is room.
    public mutating func add(_ response: MDNSMulticastProbe.Response) {
        counts[response.interfaceIndex, default: 0] += 1
        guard kept.count < limit, seen.insert(response).inserted else { return }
        kept.append(response)
    }
}
