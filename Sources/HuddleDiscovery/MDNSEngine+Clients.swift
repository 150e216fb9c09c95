import HuddleDNS
import HuddleMDNSCore
import NIOCore

extension MDNSEngine {
    // MARK: Registrations

    func register(
        _ registration: MDNSServiceRegistration,
        continuation: AsyncStream<MDNSResponderEvent>.Continuation
    ) -> MDNSServiceID? {
        guard !self.isShutDown else {
            continuation.finish()
            return nil
        }
        let id = self.responder.register(registration, now: .now())
        self.registrations[id] = continuation
        self.pump()
        return id
    }

    func update(_ id: MDNSServiceID, txt: MDNSTXTRecord?, port: UInt16?) {
        self.responder.update(id, txt: txt, port: port, now: .now())
        self.pump()
    }

    func unregister(_ id: MDNSServiceID) {
        self.responder.unregister(id, now: .now())
        self.registrations.removeValue(forKey: id)?.finish()
        self.pump()
    }

    func dispatch(_ event: MDNSResponderEvent) {
        switch event {
        case .registered(let id, _), .renamed(let id, _, _):
            self.registrations[id]?.yield(event)
        case .hostRenamed:
            for continuation in self.registrations.values { continuation.yield(event) }
        }
    }

    // MARK: Browsing

    /// A stream of browse events for one browse name; the first subscriber starts the query series, the last
    /// one to leave stops it.
    func subscribe(browseName: DNSName) -> AsyncStream<MDNSBrowseEvent> {
        let (stream, continuation) = AsyncStream<MDNSBrowseEvent>.makeStream(bufferingPolicy: .unbounded)
        self.eventLoop.execute {
            guard !self.isShutDown else {
                continuation.finish()
                return
            }
            let key = self.nextSubscriber
            self.nextSubscriber += 1
            self.subscribers[key] = BrowseSubscriber(browseName: browseName, continuation: continuation, reported: [])
            continuation.onTermination = { _ in
                self.eventLoop.execute { self.unsubscribe(key) }
            }
            let now = NIODeadline.now()
            if browseName == dnssdServicesName {
                self.querier.browseServiceTypes(now: now)
            } else {
                self.querier.browse(name: browseName, now: now)
            }
            self.replay(to: key)
            self.pump()
        }
        return stream
    }

    func unsubscribe(_ key: Int) {
        guard let subscriber = self.subscribers.removeValue(forKey: key) else { return }
        if !self.subscribers.values.contains(where: { $0.browseName == subscriber.browseName }) {
            self.querier.stopBrowsing(name: subscriber.browseName)
        }
    }

    /// Tells a new subscriber what is already known.
    func replay(to key: Int) {
        guard var subscriber = self.subscribers[key] else { return }
        if subscriber.browseName == dnssdServicesName {
            for type in self.querier.serviceTypes.sorted(by: { $0.description < $1.description }) {
                subscriber.continuation.yield(.typeFound(type))
            }
        } else {
            let members = self.querier.instances(browsing: subscriber.browseName)
            for (name, service) in self.querier.services.sorted(by: { $0.key.description < $1.key.description })
            where members.contains(name) {
                subscriber.reported.insert(name)
                subscriber.continuation.yield(.added(service))
            }
        }
        self.subscribers[key] = subscriber
    }

    func dispatch(_ events: [MDNSBrowseEvent]) {
        for key in self.subscribers.keys.sorted() {
            guard var subscriber = self.subscribers[key] else { continue }
            let isTypeBrowse = subscriber.browseName == dnssdServicesName
            let members = isTypeBrowse ? [] : self.querier.instances(browsing: subscriber.browseName)
            for event in events {
                switch event {
                case .typeFound, .typeLost:
                    if isTypeBrowse { subscriber.continuation.yield(event) }
                case .added(let service), .updated(let service):
                    guard !isTypeBrowse else { continue }
                    if members.contains(service.fullName) {
                        let isNew = subscriber.reported.insert(service.fullName).inserted
                        subscriber.continuation.yield(isNew ? .added(service) : event)
                    } else if subscriber.reported.remove(service.fullName) != nil {
                        subscriber.continuation.yield(.removed(service.fullName))
                    }
                case .removed(let name):
                    if subscriber.reported.remove(name) != nil { subscriber.continuation.yield(event) }
                }
            }
            self.subscribers[key] = subscriber
        }
    }

    // MARK: Shutdown

    func shutdown() async {
        let alreadyDown =
            (try? await self.eventLoop.submit { () -> Bool in
                defer { self.isShutDown = true }
                if self.isShutDown { return true }
                self.responder.shutdown(now: .now())
                self.pump()
                return false
            }.get()) ?? true
        guard !alreadyDown else { return }
        // Let the goodbye packets go out, 125 ms apart (RFC 6762 §10.1).
        for _ in 0..<40 {
            let pending = (try? await self.eventLoop.submit { self.responder.nextDeadline != nil }.get()) ?? false
            if !pending { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        try? await self.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
            self.interfaceWatch?.cancel()
            self.timer?.cancel()
            for subscriber in self.subscribers.values { subscriber.continuation.finish() }
            for continuation in self.registrations.values { continuation.finish() }
            self.subscribers = [:]
            self.registrations = [:]
            let sockets = Array(self.sockets.values)
            self.sockets = [:]
            let drained = sockets.map { socket in socket.drained.flatMap { socket.close() } }
            return EventLoopFuture.andAllComplete(drained, on: self.eventLoop)
        }.get()
    }
}
