public import HuddleDNS
public import NIOCore

/// What a session needs to use a wide-area DNS-SD domain (RFC 6763 §11): the domain, the server that is
/// authoritative for it, and the key that lets this host update it.
public struct WideAreaConfiguration: Hashable, Sendable {
    public var domain: DNSName
    public var server: SocketAddress
    /// Signs the updates that register the session; without one the session only browses.
    public var key: TSIGKey?
    /// How often to ask for the domain's instances again (polling: no DNS Push, RFC 8765, here).
    public var pollInterval: Duration = .seconds(30)

    public init(domain: DNSName, server: SocketAddress, key: TSIGKey?) {
        self.domain = domain
        self.server = server
        self.key = key
    }
}

/// A service instance found in a domain: what its SRV, TXT and its host's addresses say.
public struct WideAreaInstance: Hashable, Sendable {
    public var name: DNSName
    /// The host name its SRV names.
    public var host: DNSName
    public var port: UInt16
    public var txt: [[UInt8]]
    public var addresses: [String]
}

/// Why a wide-area operation failed, in words for the user.
public enum WideAreaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server answered an update with this RCODE (RFC 2136 §2.2).
    case updateRefused(rcode: UInt8, zone: String)
    case tsig(TSIGError)
    case badAnswer(String)

    public var description: String {
        switch self {
        case .updateRefused(5, let zone):
            "the DNS server refused the update of \(zone) (REFUSED): updates need a key it allows"
        case .updateRefused(9, let zone):
            "the DNS server is not authoritative for \(zone), or refused the key (NOTAUTH)"
        case .updateRefused(10, let zone): "\(zone) is not a zone of the DNS server (NOTZONE)"
        case .updateRefused(let rcode, let zone): "the DNS server refused the update of \(zone) (RCODE \(rcode))"
        case .tsig(let error): "\(error)"
        case .badAnswer(let why): "the DNS server's answer could not be read: \(why)"
        }
    }
}

/// Registers and browses in one domain through its server: DNS UPDATE signed with TSIG, and unicast queries.
public struct WideAreaDNS: Sendable {
    public let configuration: WideAreaConfiguration
    let client: any DNSExchange

    /// - Parameter exchange: how messages reach the server; nil: UDP to the configuration's server.
    public init(configuration: WideAreaConfiguration, exchange: (any DNSExchange)? = nil) {
        self.configuration = configuration
        self.client = exchange ?? UnicastDNSClient(server: configuration.server)
    }

    /// Sends `update`, signed when there is a key, and checks the answer (and its signature).
    ///
    /// With a key, an answer whose signature does not verify is believed only when no signed one comes before the
    /// attempt's deadline (RFC 8945 §5.3.2: BADSIG and BADKEY come unsigned), so that a forged unsigned error
    /// cannot make an update the server applied look refused.
    ///
    /// - Throws: ``WideAreaError/updateRefused(rcode:zone:)`` with the RCODE of a refused update, one of
    ///   ``DNSUpdate/prerequisiteFailures`` when a prerequisite did not hold; ``WideAreaError/tsig(_:)``.
    public func send(_ update: DNSUpdate, now secondsSinceEpoch: UInt64) async throws {
        let id = UInt16.random(in: .min ... .max)
        var message = update.message(id: id)
        var requestMAC: [UInt8] = []
        let key = configuration.key
        if let key {
            (message, requestMAC) = TSIG.sign(message, key: key, timeSigned: secondsSinceEpoch)
        }
        let signedMAC = requestMAC
        let answer = try await client.exchange(message) { answer in
            guard let key else { return .accept }
            do throws(TSIGError) {
                try TSIG.verify(answer, key: key, requestMAC: signedMAC)
                return .accept
            } catch .refusedByServer {
                return .accept
            } catch {
                return .fallback
            }
        }
        guard answer.count >= 12 else { throw WideAreaError.badAnswer("\(answer.count) bytes") }
        let rcode = answer[3] & 0x0F
        if let key {
            do throws(TSIGError) {
                try TSIG.verify(answer, key: key, requestMAC: requestMAC)
            } catch .refusedByServer(let code) {
                throw WideAreaError.tsig(.refusedByServer(code: code))
            } catch .unsignedRefusal(let code) {
                throw WideAreaError.tsig(.unsignedRefusal(code: code))
            } catch {
                // A refusal before any key check (REFUSED) comes unsigned; say the RCODE rather than "unsigned".
                if rcode != 0 { throw WideAreaError.updateRefused(rcode: rcode, zone: "\(update.zone)") }
                throw WideAreaError.tsig(error)
            }
        }
        guard rcode == 0 else { throw WideAreaError.updateRefused(rcode: rcode, zone: "\(update.zone)") }
    }

    /// The records that answer `name`/`type`, with the server's additional records.
    public func query(_ name: DNSName, _ type: DNSRecordType) async throws -> [DNSRecord] {
        var message = DNSMessage.query([DNSQuestion(name: name, type: type)])
        message.id = UInt16.random(in: .min ... .max)
        let answer = try await client.exchange(Array(message.encoded().readableBytesView))
        guard let decoded = try? DNSMessageDecoder().decode(answer) else { throw WideAreaError.badAnswer("malformed") }
        return decoded.answers + decoded.additionals
    }

    /// The domains to browse (RFC 6763 §11): the configured one, and those its `b._dns-sd._udp` and
    /// `lb._dns-sd._udp` PTR records name.
    public func browseDomains() async -> [DNSName] {
        var domains = [configuration.domain]
        for label in ["lb", "b"] {
            guard
                let name = try? configuration.domain.prepending(label: "_udp").prepending(label: "_dns-sd")
                    .prepending(label: label), let records = try? await query(name, .ptr)
            else { continue }
            for record in records where record.name == name {
                if case .ptr(let domain) = record.data, !domains.contains(domain) { domains.append(domain) }
            }
        }
        return domains
    }

    /// The instances of `serviceType` in `domain`: PTR, then each one's SRV and TXT, then its host's addresses.
    public func browse(serviceType: String, in domain: DNSName) async throws -> [WideAreaInstance] {
        let service = try ServiceRegistration.name(serviceType, in: domain)
        var instances: [WideAreaInstance] = []
        for record in try await query(service, .ptr) where record.name == service {
            guard case .ptr(let name) = record.data else { continue }
            let records = try await query(name, .srv) + (try await query(name, .txt))
            var port: UInt16?
            var target: DNSName?
            var txt: [[UInt8]] = []
            for record in records where record.name == name {
                switch record.data {
                case .srv(_, _, let srvPort, let srvTarget): (port, target) = (srvPort, srvTarget)
                case .txt(let strings): txt = strings
                default: break
                }
            }
            guard let port, let target else { continue }
            var addresses: [String] = []
            for type in [DNSRecordType.a, .aaaa] {
                for found in try await query(target, type) where found.name == target {
                    if case .a(let address) = found.data { addresses.append("\(address)") }
                    if case .aaaa(let address) = found.data { addresses.append("\(address)") }
                }
            }
            instances.append(WideAreaInstance(name: name, host: target, port: port, txt: txt, addresses: addresses))
        }
        return instances
    }
}
