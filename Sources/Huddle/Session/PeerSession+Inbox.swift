import HuddleTransport
import HuddleWire
import NIOCore

extension PeerSession {
    func handle(_ item: Inbox) async {
        switch item {
        case .accepted(let id, let channel, let remote, let route):
            io[id] = ConnectionIO(channel: channel, remote: remote, route: route)
            apply(.accepted(id))
        case .dialed(let id, .success(let channel)):
            guard io[id] != nil else { return channel.close(promise: nil) }
            io[id]?.channel = channel
            apply(.opened(id))
        case .dialed(let id, .failure(let error)):
            connectionClosed(id, error: error)
        case .connection(let id, let event):
            handle(event, on: id)
        case .message(let id, let buffer, let sequence):
            receivedMessage(buffer, sequence: sequence, on: id)
        case .unsent(let buffer, let peer, let channel):
            let id = io.first { $0.value.channel.map(ObjectIdentifier.init) == channel }?.key
            apply(.unsent(buffer, to: peer, connection: id))
        case .directory(.found(let advert)):
            apply(.found(advert))
        case .directory(.lost(let peer)):
            apply(.lost(peer))
        case .datagram(let bytes, let source):
            await datagrams.received(bytes, from: source)
        }
    }

    func handle(_ event: PeerConnectionEvent, on id: ConnectionID) {
        guard machine.hasConnection(id) else {
            if case .message(let buffer) = event { flow.consumed(buffer.readableBytes) }
            if case .resource(let buffer) = event { flow.consumedResource(buffer.readableBytes) }
            return
        }
        switch event {
        case .authenticated(let device):
            apply(.authenticated(id, device))
        case .prompt(let prompt):
            apply(.prompted(id, prompt))
        case .connected(let outcome):
            apply(.connected(id, outcome))
        case .message(let buffer):
            // Messages come through `Inbox.message`, numbered; this is only reached by a caller bypassing it.
            flow.consumed(buffer.readableBytes)
        case .resumed, .introduced:
            break
        case .unacknowledged(let messages, let next):
            apply(.unacknowledged(id, messages: messages, next: next))
        case .resource(let buffer):
            guard let peer = machine.peer(on: id) else { return flow.consumedResource(buffer.readableBytes) }
            // A chunk of a file being written counts until its writer has written it; the rest count until now.
            transfers.assumeIsolated { $0.received(buffer, from: peer) }
        case .closed(let error):
            connectionClosed(id, error: error.map { .connection($0) })
        }
    }

    /// Connection `id` ended: the rules hear of it while its channel is still known, then its I/O is dropped.
    func connectionClosed(_ id: ConnectionID, error: PeerSessionError?) {
        apply(.closed(id, error))
        io[id] = nil
    }

    /// A numbered reliable message that came through the inbox.
    func receivedMessage(_ buffer: ByteBuffer, sequence: UInt64, on id: ConnectionID) {
        guard let route = io[id]?.route, machine.hasConnection(id) else { return flow.consumed(buffer.readableBytes) }
        defer { route.leftInbox() }
        guard let peer = machine.deliverable(sequence, on: id) else { return flow.consumed(buffer.readableBytes) }
        emit(.received(Array(buffer.readableBytesView), from: peer))
    }
}
