public import Foundation
public import HuddleForeign
import HuddleLocalSend

/// Sends files, or a text, to a LocalSend or KDE Connect device: every file in one offer, after the device's
/// certificate is checked against the pins (docs/design.md, "Foreign peers").
///
/// The questions are the caller's: a PIN the device asks for, and whether to go on when its certificate changed.
public struct ForeignDelivery: Sendable {
    public let foreign: ForeignPeers
    /// The paths given; directories among them are refused (foreign devices take files only).
    public let paths: [String]
    /// A text to send instead of files.
    public var text: String?
    /// The PIN given up front.
    public var pin: String?
    /// Asks the user `question` and returns the answer; nil when there is nobody to ask or no answer.
    public var askLine: @Sendable (_ question: String) async -> String?
    /// Asks whether to send anyway, and pin the new certificate, to a device whose certificate changed (`pinned`:
    /// the fingerprint pinned before). Only a person who knows the device changed may say yes.
    public var confirmChangedCertificate: @Sendable (_ peer: ForeignPeer, _ pinned: String) async -> Bool
    /// What the user can do about a failure, in the caller's words (a flag, a setting); nil: nothing to add. The
    /// protocols' errors name no flag.
    public var remedy: @Sendable (any Error) -> String? = { _ in nil }

    public init(
        foreign: ForeignPeers,
        paths: [String],
        askLine: @escaping @Sendable (String) async -> String?,
        confirmChangedCertificate: @escaping @Sendable (ForeignPeer, String) async -> Bool
    ) {
        self.foreign = foreign
        self.paths = paths
        self.askLine = askLine
        self.confirmChangedCertificate = confirmChangedCertificate
    }

    /// The paths that are files, not directories.
    public var files: [URL] { paths.filter { !SendWindow.isDirectory($0) }.map { URL(fileURLWithPath: $0) } }

    /// Sends the text or the files to `peer`; returns how many failed (each directory counts as one).
    public func send(
        to peer: ForeignPeer,
        via service: any ForeignPeerService,
        report: @Sendable (DeliveryOutcome) -> Void
    ) async -> Int {
        if let text {
            do {
                try await service.send(text: text, to: peer, pin: pin)
            } catch {
                report(.failed(FailedRecord(peer: peer.name, error: said(error))))
                return 1
            }
            report(.sent(SentRecord(textTo: peer), device: peer))
            return 0
        }
        let directories = paths.filter(SendWindow.isDirectory)
        for path in directories {
            let reason = "directories go to Huddle peers only; \(peer.name) is a \(peer.protocol.rawValue) device"
            report(.failed(FailedRecord(file: path, error: reason)))
        }
        let files = self.files
        guard !files.isEmpty else { return directories.count }
        let everything = files.count + directories.count
        let trust: ForeignTrust
        do {
            trust = try foreign.pins.load().trust(of: peer)
        } catch {
            report(.failed(FailedRecord(peer: peer.name, error: "not sent (the pin file cannot be read: \(error))")))
            return everything
        }
        if case .changed(let pinned) = trust, await !confirmChangedCertificate(peer, pinned.fingerprint) {
            report(.failed(FailedRecord(peer: peer.name, error: "not sent (its certificate changed)")))
            return everything
        }
        do {
            try await sendAskingForPIN(files, to: peer, via: service)
        } catch {
            report(.offerFailed(files: files.map(\.lastPathComponent), device: peer, error: said(error)))
            return everything
        }
        for file in files {
            report(
                .sent(SentRecord(file: file.lastPathComponent, peer: peer.name, protocol: peer.protocol), device: peer)
            )
        }
        // KDE Connect pins when it pairs; LocalSend has only this first accepted use.
        if !trust.isPinned, service.pinsOnFirstUse, peer.fingerprint != nil {
            do {
                if try foreign.pins.pin(peer) { report(.pinned(peer)) }
            } catch {
                report(.failed(FailedRecord(peer: peer.name, error: "sent, but could not be pinned: \(error)")))
            }
        }
        return directories.count
    }

    /// `error` in words, with the caller's ``remedy`` when it has one.
    func said(_ error: any Error) -> String {
        remedy(error).map { "\(error): \($0)" } ?? "\(error)"
    }

    /// Sends, and when the device asks for a PIN (or refuses the one given) asks for it, up to three times;
    /// without an answer the device's refusal stands.
    func sendAskingForPIN(_ files: [URL], to peer: ForeignPeer, via service: any ForeignPeerService) async throws {
        var pin = self.pin
        for attempt in 1... {
            do {
                return try await service.send(files: files, to: peer, pin: pin)
            } catch let error as LocalSendError where error.code == .pinRequired || error.code == .pinRejected {
                let question =
                    error.code == .pinRequired ? "\(peer.name) asks for a PIN:" : "\(peer.name) refused the PIN; PIN:"
                guard attempt <= 3, let answer = await askLine(question), !answer.isEmpty else { throw error }
                pin = answer.trimmingCharacters(in: .whitespaces)
            }
        }
    }
}
