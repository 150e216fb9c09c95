import Crypto
import HuddleWire
import NIOCore

extension PeerConnectionHandler {
    func perform(_ actions: [PeerHandshake.Action], context: ChannelHandlerContext) {
        for action in actions {
            switch action {
            case .send(let message):
                if case .sasNonce = message { drewCode = true }
                sendControl(message, context: context)
            case .prompt(let prompt):
                setup.admissionTicket?.release()
                report(.prompt(prompt), context: context)
            case .connected(let outcome):
                setup.admissionTicket?.release()
                closePairingRun(paired: true)
                report(.connected(outcome), context: context)
                scheduleHeartbeat(context: context)
            case .fail(let error, let notify):
                if let notify { sendControl(.close(notify), context: context) }
                fail(error, notify: nil, context: context)
            case .openPairingRun:
                openPairingRun(context: context)
            case .checkPairingLink(let proof, let binding):
                checkPairingLink(proof: proof, binding: binding, context: context)
            case .introduced(let hello, let version):
                report(.introduced(hello, version: version), context: context)
                sentGoodbye = true
                sendControl(.close(.goodbye), context: context)
                context.flush()
                context.close(promise: nil)
            }
        }
        context.flush()
    }

    /// Charges the pairing budget before the handshake may send its nonce or commitment.
    func openPairingRun(context: ChannelHandlerContext) {
        guard var machine, let device = verifier.presented else { return }
        var refusal: PairingBudget.Refusal?
        if let gate = setup.pairingGate {
            let source = PairingGate.source(device: device, address: context.channel.remoteAddress)
            switch gate.open(source, role: setup.role) {
            case .granted(let run): pairingRun = run
            case .refused(let why): refusal = why
            }
        }
        let actions = machine.pairingRun(refusal: refusal, now: now(context))
        self.machine = machine
        perform(actions, context: context)
    }

    /// Asks the issued links about the initiator's proof and hands the answer to the handshake.
    func checkPairingLink(proof: [UInt8], binding: [UInt8], context: ChannelHandlerContext) {
        guard var machine else { return }
        let valid = setup.pairingLinks?.redeem(proof: proof, binding: binding) ?? false
        let actions = machine.linkChecked(valid: valid, now: now(context))
        self.machine = machine
        perform(actions, context: context)
    }

    /// Returns the run to the budget. A run that ended before the responder's nonce (refused by the other side's
    /// budget, say) drew nothing and is no failure.
    func closePairingRun(paired: Bool) {
        guard let run = pairingRun else { return }
        pairingRun = nil
        setup.pairingGate?.close(run, paired: paired, drewCode: drewCode)
    }

    func receivedWhileConnected(_ message: PeerControlMessage, context: ChannelHandlerContext) {
        switch message {
        case .ping(let value):
            switch phase.receivedPing(value, now: now(context)) {
            case .sendPong(let value):
                sendControl(.pong(value), context: context)
                context.flush()
            case .fail(let error):
                fail(error, context: context)
            }
        case .pong:
            phase.receivedPong()
        case .ack(let sequence):
            acknowledged(through: sequence, context: context)
        case .resume(let sequence):
            if let error = phase.receivedResume(sequence) { return fail(error, context: context) }
            report(.resumed(sequence), context: context)
        case .close(let reason):
            // What was read before the CLOSE arrived: say so before closing, so the peer can tell it from loss.
            acknowledge(context: context)
            if reason == .goodbye {
                sentGoodbye = true
            } else {
                // The peer's reason wins, even over one of ours set while closing: the duplicate tie-break relies
                // on hearing `duplicate` from the side that kept the other connection.
                failure = .wire(.closedByPeer(reason: reason))
            }
            context.close(promise: nil)
        default:
            fail(.protocolViolation(state: "connected", message: message.name), context: context)
        }
    }

    func receivedData(_ frame: PeerFrame, context: ChannelHandlerContext) {
        // Reported closed (a silent peer) and only waiting for TLS to shut down: what still comes is not taken.
        guard !closedReported else { return }
        var payload = frame.payload
        let stream = frame.streamID
        if payload.readableBytes == 0 && !frame.flags.contains(.endOfMessage) {
            if let error = phase.receivedEmptyFrame() { fail(error, context: context) }
            return
        }
        let size = (incoming[stream]?.readableBytes ?? 0) + payload.readableBytes
        let limit = setup.configuration.maximumMessageSize
        guard size <= limit else {
            fail(.messageTooLarge(limit: limit, declared: size), context: context)
            return
        }
        if incoming[stream] == nil {
            incoming[stream] = payload
        } else {
            incoming[stream]!.writeBuffer(&payload)
        }
        guard frame.flags.contains(.endOfMessage), let message = incoming.removeValue(forKey: stream) else { return }
        let isMessage = stream == PeerFrame.messageStream
        if isMessage { phase.receivedMessage() }
        if let gate = setup.receiveGate {
            let count = message.readableBytes
            let pause =
                isMessage
                ? gate.received(count, on: context.channel) : gate.receivedResource(count, on: context.channel)
            if pause { try? context.channel.syncOptions?.setOption(.autoRead, value: false) }
        }
        report(isMessage ? .message(message) : .resource(message), context: context)
    }

    func writeMessage(
        _ message: ByteBuffer,
        stream: UInt32,
        context: ChannelHandlerContext,
        promise: EventLoopPromise<Void>?
    ) {
        var remaining = message
        let limit = setup.configuration.maximumFramePayload
        repeat {
            let piece = remaining.readSlice(length: min(limit, remaining.readableBytes))!
            let last = remaining.readableBytes == 0
            let frame = PeerFrame(
                kind: .data,
                flags: last ? .endOfMessage : [],
                streamID: stream,
                payload: piece
            )
            context.write(wrapOutboundOut(frame), promise: last ? promise : nil)
        } while remaining.readableBytes > 0
    }

    func sendControl(_ message: PeerControlMessage, context: ChannelHandlerContext) {
        var payload = context.channel.allocator.buffer(capacity: 64)
        message.encode(into: &payload)
        let frame = PeerFrame(kind: .control, streamID: PeerFrame.controlStream, payload: payload)
        context.write(wrapOutboundOut(frame), promise: nil)
    }

    /// Sends CLOSE and closes: a normal goodbye, or a refusal with its reason.
    func goodbye(_ reason: PeerCloseReason, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        sentGoodbye = reason == .goodbye
        if reason != .goodbye && failure == nil { failure = .wire(.pairingRejected(reason: reason)) }
        acknowledge(context: context)
        sendControl(.close(reason), context: context)
        context.flush()
        switch phase.sentClose(reason) {
        case .close:
            context.close(promise: nil)
        case .waitForAcknowledgement(let limit):
            schedule(after: limit, context: context) { _, context in context.close(promise: nil) }
        }
    }

    func fail(_ error: PeerWireError, notify: PeerCloseReason? = .protocolError, context: ChannelHandlerContext) {
        if let notify, context.channel.isActive {
            sendControl(.close(notify), context: context)
            context.flush()
        }
        abort(.wire(error), context: context)
    }

    func abort(_ error: PeerConnectionError, context: ChannelHandlerContext) {
        if failure == nil { failure = error }
        timer?.cancel()
        // A silent peer will not answer TLS's close_notify either: closing waits for the TLS shutdown timeout
        // (5 s), so the peer is reported gone now, within the disconnect timeout the caller asked for.
        if case .unresponsive = error { report(.closed(failure), context: context) }
        context.flush()
        context.close(promise: nil)
    }

    func report(_ event: PeerConnectionEvent, context: ChannelHandlerContext) {
        if case .closed = event {
            guard !closedReported else { return }
            closedReported = true
            if machine?.isConnected == true {
                sink(.unacknowledged(Array(phase.unacknowledged), next: phase.outgoingSequence))
            }
        }
        sink(event)
    }

    static func randomBytes() -> [UInt8] {
        SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }
}
