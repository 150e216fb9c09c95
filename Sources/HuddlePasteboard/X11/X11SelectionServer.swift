#if os(Linux) || os(FreeBSD) || os(OpenBSD)
import Foundation
import Glibc

/// The event loop of an ``X11SelectionOwner``: answers `SelectionRequest`s, feeds INCR transfers, notices
/// `SelectionClear`. Runs on the owner's thread, blocked in `poll(2)` between events.
struct X11SelectionServer: Sendable {
    let connection: UncheckedBox<X11Connection>
    let contents: X11SelectionContents
    let selection: XID
    let time: XID

    /// An INCR transfer in progress to one requestor property (ICCCM §2.7.2).
    private struct Transfer {
        var requestor: XID
        var property: XID
        var type: XID
        var data: Data
        var offset = 0
        var lastActivity = ContinuousClock.now
    }

    /// How long an INCR requestor may stay silent before the transfer is dropped (it probably exited).
    static let stalledTransferTimeout: Duration = .seconds(10)

    func run(wake: Int32) {
        let connection = self.connection.value
        let lib = connection.lib
        var owned = true
        var transfers: [Transfer] = []
        var event = XEvent()
        while owned || !transfers.isEmpty {
            while lib.pending(connection.display) > 0 {
                _ = event.withPointer { lib.nextEvent(connection.display, $0) }
                switch event.type {
                case XEvent.Kind.selectionClear where event.clearSelection == self.selection:
                    owned = false
                case XEvent.Kind.selectionRequest:
                    if let transfer = self.answer(event, owned: owned, connection: connection) {
                        transfers.append(transfer)
                    }
                case XEvent.Kind.propertyNotify where event.propertyState == XEvent.PropertyState.deleted:
                    self.advance(&transfers, window: event.window, property: event.propertyAtom, connection)
                default:
                    break
                }
            }
            transfers.removeAll { $0.lastActivity.duration(to: .now) > Self.stalledTransferTimeout }
            guard owned || !transfers.isEmpty, !connection.isBroken else { break }
            let woke = connection.poll(timeoutMilliseconds: transfers.isEmpty ? -1 : 1000, wake: wake)
            if woke {
                if lib.getSelectionOwner(connection.display, self.selection) == connection.window {
                    _ = lib.setSelectionOwner(connection.display, self.selection, 0, self.time)
                    connection.flush()
                }
                return
            }
        }
    }

    /// Writes the answer to a request into the requestor's property and notifies it (ICCCM §2.2).
    private func answer(_ request: XEvent, owned: Bool, connection: X11Connection) -> Transfer? {
        let lib = connection.lib
        let target = request.requestTarget
        // Obsolete clients pass property None: use the target as the property (ICCCM §2.2).
        let property = request.requestProperty == 0 ? target : request.requestProperty
        var reply = property
        var transfer: Transfer?
        let targetName = connection.name(of: target) ?? ""
        if !owned || request.requestSelection != self.selection {
            reply = 0
        } else if targetName == "TARGETS" {
            var atoms = self.contents.targets.map { UInt(connection.atom($0)) }
            _ = lib.changeProperty(
                connection.display,
                request.requestRequestor,
                property,
                connection.atom("ATOM"),
                32,
                PropertyMode.replace,
                &atoms,
                Int32(atoms.count)
            )
        } else if targetName == "TIMESTAMP" {
            var value = [UInt(self.time)]
            _ = lib.changeProperty(
                connection.display,
                request.requestRequestor,
                property,
                connection.atom("INTEGER"),
                32,
                PropertyMode.replace,
                &value,
                1
            )
        } else if let answer = self.contents.answer(for: targetName) {
            let type = connection.atom(answer.type)
            if answer.data.count > connection.maximumPropertyBytes {
                // Too large for one request: announce INCR with a lower bound on the size (ICCCM §2.7.2).
                _ = lib.selectInput(connection.display, request.requestRequestor, XEvent.Mask.propertyChange)
                var size = [UInt(answer.data.count)]
                _ = lib.changeProperty(
                    connection.display,
                    request.requestRequestor,
                    property,
                    connection.atom("INCR"),
                    32,
                    PropertyMode.replace,
                    &size,
                    1
                )
                transfer = Transfer(
                    requestor: request.requestRequestor,
                    property: property,
                    type: type,
                    data: answer.data
                )
            } else {
                Self.write(answer.data, type: type, to: request.requestRequestor, property: property, connection)
            }
        } else {
            reply = 0  // not offered (MULTIPLE and SAVE_TARGETS are refused too)
        }
        var notify = XEvent.selectionNotify(
            requestor: request.requestRequestor,
            selection: request.requestSelection,
            target: target,
            property: reply,
            time: request.requestTime
        )
        _ = notify.withPointer { lib.sendEvent(connection.display, request.requestRequestor, 0, 0, $0) }
        connection.flush()
        return transfer
    }

    /// The requestor deleted the property: write the next chunk, or the zero-length end marker.
    private func advance(_ transfers: inout [Transfer], window: XID, property: XID, _ connection: X11Connection) {
        guard let index = transfers.firstIndex(where: { $0.requestor == window && $0.property == property }) else {
            return
        }
        var transfer = transfers[index]
        let end = min(transfer.data.count, transfer.offset + connection.maximumPropertyBytes)
        let chunk = transfer.data[transfer.data.startIndex + transfer.offset..<transfer.data.startIndex + end]
        Self.write(chunk, type: transfer.type, to: window, property: property, connection)
        if chunk.isEmpty {
            transfers.remove(at: index)
            if !transfers.contains(where: { $0.requestor == window }) {
                _ = connection.lib.selectInput(connection.display, window, 0)
            }
        } else {
            transfer.offset = end
            transfer.lastActivity = .now
            transfers[index] = transfer
        }
        connection.flush()
    }

    private static func write(_ data: Data, type: XID, to window: XID, property: XID, _ connection: X11Connection) {
        data.withUnsafeBytes { bytes in
            _ = connection.lib.changeProperty(
                connection.display,
                window,
                property,
                type,
                8,
                PropertyMode.replace,
                bytes.baseAddress,
                Int32(bytes.count)
            )
        }
    }
}
#endif
