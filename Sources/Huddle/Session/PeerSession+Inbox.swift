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
        case .message(let id, let buffer, let header, let sequence, let charge):
            receivedMessage(buffer, header, sequence: sequence, on: id, charge: charge)
        case .resource(let id, let buffer, let charge):
            receivedResource(buffer, on: id, charge: charge)
        case .unsent(let buffer, let peer, let channel):
            let id = io.first { $0.value.channel.map(ObjectIdentifier.init) == channel }?.key
            apply(.unsent(buffer, to: peer, connection: id))
        case .directory(.found(let advert)):
            apply(.found(advert))
        case .directory(.lost(let peer)):
            apply(.lost(peer))
        case .datagram(let bytes, let source, let arrival):
            await datagrams.received(bytes, from: source, at: arrival)
        }
    }

    func handle(_ event: PeerConnectionEvent, on id: ConnectionID) {
        guard machine.hasConnection(id) else { return }
        switch event {
        case .authenticated(let device):
            apply(.authenticated(id, device))
        case .prompt(let prompt):
            apply(.prompted(id, prompt))
        case .connected(let outcome):
            apply(.connected(id, outcome))
        case .message, .resource, .resumed, .introduced:
            // Messages and the resource stream come through their own `Inbox` cases, charged (`ConnectionWiring`).
            break
        case .unacknowledged(let messages, let next):
            apply(.unacknowledged(id, messages: messages, next: next))
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
    /// A message of the resource stream; a chunk of a file being written stays charged until its writer has
    /// written it, the rest until handled.
    func receivedResource(_ buffer: ByteBuffer, on id: ConnectionID, charge: ReceiveCharge) {
        guard let peer = machine.peer(on: id) else { return }
        transfers.assumeIsolated { $0.received(buffer, from: peer, charge: charge) }
    }

    /// A message dropped here counts out of the receive budget with its `charge`.
    func receivedMessage(
        _ buffer: ByteBuffer,
        _ header: ReliableMessageHeader?,
        sequence: UInt64,
        on id: ConnectionID,
        charge: ReceiveCharge
    ) {
        guard let route = io[id]?.route, machine.hasConnection(id) else { return }
        defer { route.leftInbox() }
        guard let peer = machine.deliverable(sequence, on: id), let header,
            let delivery = wiring.pings.take(header, buffer, from: peer)
        else { return }
        broadcast.yield(.received(Array(buffer.readableBytesView), from: peer, delivery), holding: charge)
    }
}
