import Foundation
public import Huddle

/// Sends files and directories to Huddle peers: every path to each peer, in order, and several peers at once.
///
/// Small files overlap (``SendWindow``): each costs two round trips (offer → accept, end → verified) that would
/// otherwise be idle time between files. Results are reported in the order of the paths (docs/design.md,
/// "Sending").
public struct HuddleDelivery: Sendable {
    public let session: PeerSession
    public let paths: [String]

    public init(session: PeerSession, paths: [String]) {
        self.session = session
        self.paths = paths
    }

    /// Sends every path to `peer`; `name` is the peer's name when there are several peers (then each result says
    /// which). Returns how many paths failed.
    public func send(
        to peer: PeerID,
        named name: String?,
        report: @Sendable (DeliveryOutcome) -> Void
    ) async -> Int {
        var failed = 0
        var results = OrderedResults<[DeliveryOutcome]>()
        func flush() {
            for (_, outcomes) in results.takeReady() {
                for outcome in outcomes {
                    if case .failed = outcome { failed += 1 }
                    report(outcome)
                }
            }
        }
        await withTaskGroup(of: (Int, UInt64, [DeliveryOutcome]).self) { group in
            var window = SendWindow()
            let weights = SendWindow.weights(of: paths)
            for (index, path) in paths.enumerated() {
                let weight = weights[index]
                while !window.admits(weight), let (done, doneWeight, outcomes) = await group.next() {
                    window.finished(doneWeight)
                    results.add(outcomes, at: done)
                    flush()
                }
                window.started(weight)
                group.addTask { (index, weight, await outcomes(sending: path, to: peer, named: name)) }
            }
            for await (done, _, outcomes) in group {
                results.add(outcomes, at: done)
                flush()
            }
        }
        return failed
    }

    /// What sending one path gives: a file's result, or a directory's skipped entries and then its result.
    func outcomes(sending path: String, to peer: PeerID, named name: String?) async -> [DeliveryOutcome] {
        let url = URL(fileURLWithPath: path)
        do {
            guard SendWindow.isDirectory(path) else {
                try await session.sendFile(at: url, to: peer)
                return [.sent(SentRecord(file: url.lastPathComponent, peer: name))]
            }
            let report = try await session.sendDirectory(at: url, to: peer)
            let directory = url.standardizedFileURL.resolvingSymlinksInPath().lastPathComponent
            let skipped = report.skipped.map { path in
                DeliveryOutcome.skipped(
                    SkippedRecord(file: directory + "/" + path, reason: "not a regular file or directory")
                )
            }
            return skipped + [.sent(SentRecord(directory: directory, report))]
        } catch {
            return [.failed(FailedRecord(file: url.lastPathComponent, peer: name, error: "\(error)"))]
        }
    }
}
