/// The protocols Huddle speaks besides its own (docs/design.md, "Foreign peers").
public enum ForeignProtocol: String, Sendable, Hashable, Codable, CaseIterable {
    case localSend = "LocalSend"
    case kdeConnect = "KDE Connect"
}
