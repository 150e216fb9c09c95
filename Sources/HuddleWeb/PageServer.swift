public import HuddleDaemon
import HuddleWire
import Hummingbird
import HummingbirdWebSocket
public import Logging
import NIOCore
public import ServiceLifecycle

/// The daemon's page as a service (docs/web.md): Hummingbird's HTTP/1.1 server on 127.0.0.1 only, at `port` (0:
/// a free one), with a new token each time it starts. Once it listens, ``Daemon/page`` holds its address with the
/// token, which `huddle ui --url` prints; when it stops, nothing.
public enum PageServer {
    public static func service(
        for daemon: Daemon,
        port: Int = 0,
        logger: Logger
    ) -> any Service {
        let gate = PageGate()
        let token = Hex.randomToken(byteCount: 32)
        let backend = PageBackend(daemon: daemon)
        let routes = PageRoutes(backend: backend, gate: gate)
        return Application(
            router: routes.router(),
            server: .http1WebSocketUpgrade(webSocketRouter: PageLive(backend: backend, gate: gate).router()),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? port
                gate.open(PageAccess(token: token, port: port))
                daemon.page.set("http://127.0.0.1:\(port)/?token=\(token)")
            },
            logger: logger
        )
    }
}
