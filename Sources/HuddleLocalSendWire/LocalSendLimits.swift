/// The bounds a LocalSend peer's messages are held to: what one hostile peer can cost (docs/localsend.md,
/// "Limits").
public struct LocalSendLimits: Sendable, Hashable {
    /// A multicast message, `/register` or `/info` body.
    public var maximumInfoBytes = 16 * 1024
    /// A prepare-upload body (it lists the files, and a text message's whole text).
    public var maximumPrepareUploadBytes = 2 * 1024 * 1024
    public var maximumFiles = 10_000
    /// A text message (sent as a preview).
    public var maximumTextBytes = 1024 * 1024
    /// The longest alias kept, in UTF-8 bytes (longer ones are refused, not cut).
    public var maximumAliasBytes = 256
    /// How many devices are kept at once; beyond it the one heard from least recently is forgotten.
    public var maximumDevices = 256
    /// How many `/register` answers are sent per device and minute (announcement floods).
    public var registerAnswersPerMinute = 6
    /// How many `/register` answers are sent per second in all: a flood of announcements under ever new
    /// fingerprints makes no more connections than this.
    public var registerAnswersPerSecond = 10
    /// Connections the servers hold open at once (the API and the share page together), and per address: more are
    /// closed as soon as they are accepted.
    public var maximumConnections = 64
    public var maximumConnectionsPerAddress = 16
    /// How long a connection may stay idle (no request under way, or a TLS handshake not finished) before it is
    /// closed.
    public var idleTimeout: Duration = .seconds(30)
    /// How many texts one address may send per minute (``LocalSendTextRate``): each is a question to the user, and
    /// with `--clipboard` a write to the clipboard once accepted.
    public var textsPerMinute = 6

    public init() {}
}
