import Foundation
import Huddle
import HuddleApp
import HuddleErrors
import HuddleForeign
import HuddleTransport
import HuddleWire

extension Daemon {
    /// `huddle send` through the daemon: each named device looked for and sent to now, or — a paired Huddle
    /// device that is away — its paths queued in the outbox (docs/daemon.md, "Outbox").
    func send(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        let paths = request.paths ?? []
        let names = request.to ?? []
        guard (request.text != nil) == paths.isEmpty, paths.allSatisfy({ $0.hasPrefix("/") }) else {
            await replies.error("name at least one file or directory by its full path, or a text, not both")
            return ExitStatus.usage.rawValue
        }
        guard !names.isEmpty else {
            await replies.error("name who to send to with --to (the daemon has nobody to ask)")
            return ExitStatus.usage.rawValue
        }
        let wait = Duration.seconds(max(0, min(request.waitSeconds ?? 15, 3600)))
        var status = ExitStatus.success
        for name in Set(names).sorted() {
            let result = await send(
                paths,
                text: request.text,
                pin: request.pin,
                to: name,
                looking: wait,
                json: request.json == true,
                numbers: request.progress == true,
                replies
            )
            if result != .success { status = result }
        }
        return status.rawValue
    }

    /// Sends to one device, or queues for it.
    func send(
        _ paths: [String],
        text: String?,
        pin: String?,
        to name: String,
        looking wait: Duration,
        json: Bool,
        numbers: Bool = false,
        _ replies: ControlReplies
    ) async
        -> ExitStatus
    {
        let paired = pairedDevice(named: name)
        let rendezvous = Rendezvous(session: session, foreign: foreign)
        // A paired device that is not here now is given a short look, then queued: the daemon has been
        // listening all along, so a device that is here is known already.
        let present = await rendezvous.present().contains { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        let limit = paired != nil && !present ? min(wait, pairedLookup) : wait
        let recipient: Recipient
        do {
            guard let found = try await rendezvous.connect(to: [name], within: limit, ask: nil).first else {
                throw RendezvousError(.notFound, "no peer called \(name) found")
            }
            recipient = found
        } catch let error as RendezvousError where !error.needsTheUser && paired != nil && text == nil {
            return await queue(paths, for: name, device: paired!, because: error, json: json, replies)
        } catch {
            await replies.error("\(error)")
            return ExitStatus(for: error)
        }
        let (outcomes, sink) = AsyncStream.makeStream(of: DeliveryOutcome.self)
        let relay = Task {
            for await outcome in outcomes {
                // As `huddle send` prints it: records with --json, failures said on standard error too.
                let (line, isFailure) = outcome.text
                if json { for record in outcome.records { await replies.record(record) } }
                if isFailure {
                    await replies.error(line)
                } else if !json || outcome.records.isEmpty {
                    await replies.line(line)
                }
            }
        }
        if case .foreign(_, let service) = recipient, text == nil {
            service.prepareToSend(files: paths.filter { !SendWindow.isDirectory($0) }.map { URL(fileURLWithPath: $0) })
        }
        // Nobody to ask here: a PIN is the one given, a changed certificate is refused.
        var toDevice = ForeignDelivery(
            foreign: foreign,
            paths: paths,
            askLine: { _ in nil },
            confirmChangedCertificate: { _, _ in false }
        )
        (toDevice.text, toDevice.pin) = (text, pin)
        let delivery = RecipientDelivery(huddle: HuddleDelivery(session: session, paths: paths), foreign: toDevice)
        let progress = text == nil ? relayProgress(to: recipient, json: json, numbers: numbers, replies) : nil
        let failures = await delivery.send(to: [recipient], naming: true) { sink.yield($0) }
        progress?.cancel()
        sink.finish()
        await relay.value
        return failures == 0 ? .success : .failure
    }

    /// Puts each path in the outbox for `device` and says so.
    func queue(
        _ paths: [String],
        for name: String,
        device: TrustRecord,
        because error: RendezvousError,
        json: Bool,
        _ replies: ControlReplies
    ) async -> ExitStatus {
        let entries = paths.map { path in
            OutboxEntry(
                id: String(format: "%08x", UInt32.random(in: 0...UInt32.max)),
                recipient: name,
                deviceID: device.deviceID,
                path: path,
                queuedAt: Date()
            )
        }
        do {
            try outbox.add(entries)
        } catch {
            await replies.error("\(error)")
            return .ioError
        }
        for entry in entries {
            if json {
                await replies.record(QueuedRecord(entry, reason: "\(error)"))
                continue
            }
            await replies.line(
                "queued \((entry.path as NSString).lastPathComponent) for \(name) (\(error)): it goes when "
                    + "\(name) is back (huddle outbox lists it, id \(entry.id))"
            )
        }
        courierWake.yield()
        return .success
    }
}
