import HuddleForeign

extension DeliveryOutcome {
    /// The outcome in words, and whether it tells of a failure (which a command prints on standard error).
    public var text: (line: String, isFailure: Bool) {
        switch self {
        case .sent(let record, let device):
            (Self.sentText(record, device: device), false)
        case .skipped(let record):
            ("skipped \(record.file): links and special files are not sent", false)
        case .failed(let record):
            ([record.file, record.peer].compactMap { $0 }.joined(separator: " to ") + ": \(record.error)", true)
        case .offerFailed(_, let device, let error):
            ("\(device.name): \(error)", true)
        case .pinned(let peer):
            (ForeignTrustText.pinned(peer), false)
        }
    }

    /// The outcome's JSON records: one per file (none for a pin, which is said in words only).
    public var records: [any Encodable & Sendable] {
        switch self {
        case .sent(let record, _): [record]
        case .skipped(let record): [record]
        case .failed(let record): [record]
        case .offerFailed(let files, _, let error): files.map { FailedRecord(file: $0, error: error) }
        case .pinned: []
        }
    }

    static func sentText(_ record: SentRecord, device: ForeignPeer?) -> String {
        let who = device.map { "\($0.name) (\($0.identityText) — not verified)" }
        if record.text == true {
            return "sent the text to \(who ?? record.peer ?? "")"
        } else if record.directory == true {
            return "sent \(record.file ?? "")/: \(record.files ?? 0) files, \(record.bytes ?? 0) bytes (this run: "
                + "\(record.filesSent ?? 0) files, \(record.bytesSent ?? 0) bytes), all verified by the receiver"
        } else if let who {
            return "sent \(record.file ?? "") to \(who)"
        }
        return "sent \(record.file ?? "")\(record.peer.map { " to \($0)" } ?? ""): verified by the receiver"
    }
}
