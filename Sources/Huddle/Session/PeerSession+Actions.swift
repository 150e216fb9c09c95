import HuddleTransport
import HuddleWire
import Logging
import NIOCore

extension PeerSession {
    /// Hands `input` to the rules and carries out what they decide, in order.
    func apply(_ input: PeerSessionStateMachine.Input) {
        for action in machine.handle(input, now: clock.now) { perform(action) }
    }

    func perform(_ action: PeerSessionStateMachine.Action) {
        switch action {
        case .emit(let event):
            emit(event)
        case .write(let id, let outbound):
            io[id]?.channel?.writeAndFlush(outbound, promise: nil)
        case .closeChannel(let id):
            io.removeValue(forKey: id)?.channel?.close(promise: nil)
        case .finishConnect(let waiter, let error):
            // The call's deadline no longer matters (the rules would ignore it): its task need not wait.
            if let deadline = connectDeadlines.removeValue(forKey: waiter) {
                tasks.removeValue(forKey: deadline)?.cancel()
            }
            guard let continuation = connectWaiters.removeValue(forKey: waiter) else {
                finishedWaiters[waiter] = .some(error)
                return
            }
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        case .connect(let peer, let timeout, let reason):
            track { [weak self] in
                do {
                    try await self?.connect(to: peer, timeout: timeout)
                    await self?.apply(.connectEnded(peer, reason: reason, failure: nil))
                } catch let error as PeerSessionError {
                    await self?.apply(.connectEnded(peer, reason: reason, failure: error))
                } catch {
                    // Only cancellation: the session is stopping.
                }
            }
        case .schedule(let timer, let delay):
            let (clock, deadline) = (self.clock, clock.now + delay)
            let task = track { [weak self] in
                try? await clock.sleep(until: deadline)
                guard !Task.isCancelled else { return }
                await self?.fired(timer)
            }
            if case .connectDeadline(let dial, _) = timer { connectDeadlines[dial] = task }
        case .openFlow(let peer, let id):
            if let channel = io[id]?.channel {
                let version = io[id]?.version ?? 2
                flow.connected(peer, channel: channel, device: machine.info(for: peer)?.deviceID, version: version)
            }
        case .closeFlow(let peer, let id):
            flow.disconnected(peer, channel: io[id]?.channel)
        case .openRoute(let id, let peer, let delivery):
            io[id]?.route.open(to: peer, delivery: delivery)
        case .endTransfers(let peer, let error):
            transfers.assumeIsolated { $0.transfersEnded(with: peer, error: error) }
        case .startDatagrams(let id, let peer, let device, let role, let outcome):
            startDatagrams(on: id, peer: peer, device: device, role: role, outcome: outcome)
        case .forgetDatagrams(let id):
            datagrams.assumeIsolated { $0.forget(id) }
        case .rememberTrust(let device, let level, let name, let version):
            do {
                if let level {
                    try trustStore.set(level, for: device, displayName: name, version: version)
                } else {
                    try trustStore.touch(device, displayName: name, version: version)
                }
            } catch {
                // The connection stands (both sides accepted); only what is remembered for next time is lost.
                configuration.logger.error(
                    "could not write the trust store",
                    metadata: ["device": "\(device)", "error": "\(error)"]
                )
            }
        case .rememberAddress(let device, let id, let port):
            rememberAddress(of: device, on: id, listeningPort: port)
        case .log(let level, let message, let metadata):
            configuration.logger.log(level: level, message, metadata: metadata)
        }
    }

    func fired(_ timer: PeerSessionStateMachine.Timer) {
        if case .connectDeadline(let dial, _) = timer { connectDeadlines[dial] = nil }
        apply(.timer(timer))
    }
}
