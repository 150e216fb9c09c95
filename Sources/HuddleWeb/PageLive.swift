import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The page's live updates (docs/web.md, "Live"): a WebSocket at `/live` (behind the same gate) that sends
/// `changed` whenever the page's state differs from what it last sent, looked at every ``interval``; the page's
/// script then fetches the page again and swaps in its lists, so one renderer serves both.
struct PageLive: Sendable {
    let backend: PageBackend
    let gate: PageGate
    var interval: Duration = .seconds(1)

    func router() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.add(middleware: PageGateMiddleware(gate: gate))
        router.ws("/live") { inbound, outbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Until the browser goes: what it sends is not read for anything.
                    for try await _ in inbound {}
                }
                group.addTask {
                    var last = await digest()
                    while !Task.isCancelled {
                        try await Task.sleep(for: interval)
                        let now = await digest()
                        if now != last {
                            try await outbound.write(.text("changed"))
                            last = now
                        }
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
        return router
    }

    /// The state as bytes to compare (dates as numbers: the same state, the same bytes).
    func digest() async -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(await backend.state())) ?? Data()
    }
}
