#if os(Linux) || os(FreeBSD) || os(OpenBSD)
import Foundation

/// The requesting side of a selection transfer (ICCCM §2.4 "Requesting a Selection", §2.7.2 "INCR Properties").
extension X11Connection {
    /// Asks the owner of `selection` for `target` and returns the property type and bytes it wrote.
    ///
    /// Large items arrive by INCR: the owner first writes a property of type `INCR`; each time we delete the
    /// property it writes the next chunk, and a zero-length chunk ends the transfer.
    ///
    /// - Parameters:
    ///   - timeout: how long to wait for the owner to answer, and then for each INCR chunk.
    ///   - maximumBytes: a limit on the size accepted, so a hostile owner cannot exhaust memory.
    /// - Throws: ``PasteboardError`` `.empty` when no one owns the selection, `.typeNotOffered` when the owner
    ///   refuses the target, `.timeout` / `.transferFailed` / `.tooLarge` when the transfer breaks off.
    func convert(
        selection: String,
        target: String,
        timeout: Duration = .seconds(2),
        maximumBytes: Int = PasteboardLimits.defaultMaximumItemBytes
    ) throws -> (type: String, data: Data) {
        let selectionAtom = self.atom(selection)
        guard self.lib.getSelectionOwner(self.display, selectionAtom) != 0 else {
            throw PasteboardError(.empty, "the \(selection) selection is empty (no program owns it)")
        }
        let property = self.atom("HUDDLE_TRANSFER")
        _ = self.lib.deleteProperty(self.display, self.window, property)
        self.discardPropertyEvents()
        _ = self.lib.convertSelection(self.display, selectionAtom, self.atom(target), property, self.window, 0)
        self.flush()
        defer { self.discardPropertyEvents() }

        guard
            let notify = self.waitForEvent(
                type: XEvent.Kind.selectionNotify,
                window: self.window,
                deadline: .now + timeout
            )
        else {
            throw PasteboardError(.timeout, "the owner of \(selection) did not answer a request for \(target)")
        }
        guard notify.selectionProperty != 0 else {
            throw PasteboardError(.typeNotOffered, "the owner of \(selection) does not offer \(target)")
        }
        guard let first = self.readProperty(property, delete: true) else {
            throw PasteboardError(.transferFailed, "the owner of \(selection) answered but wrote no data")
        }
        let typeName = self.name(of: first.type) ?? target
        guard typeName == "INCR" else {
            guard first.data.count <= maximumBytes else { throw Self.tooLarge(first.data.count, maximumBytes) }
            return (typeName, first.data)
        }
        // The INCR property holds a lower bound on the size (ICCCM §2.7.2): reserve it, up to the limit.
        let sizeHint = first.data.uint32Values().first.map { min(Int($0), maximumBytes) } ?? 0
        return try self.receiveIncremental(
            property: property,
            selection: selection,
            timeout: timeout,
            limit: maximumBytes,
            sizeHint: sizeHint
        )
    }

    private func receiveIncremental(
        property: XID,
        selection: String,
        timeout: Duration,
        limit: Int,
        sizeHint: Int
    ) throws -> (type: String, data: Data) {
        var data = Data()
        data.reserveCapacity(sizeHint)
        var type: String?
        while true {
            guard
                let event = self.waitForEvent(
                    type: XEvent.Kind.propertyNotify,
                    window: self.window,
                    deadline: .now + timeout
                )
            else {
                throw PasteboardError(
                    .transferFailed,
                    "INCR transfer from \(selection) stalled after \(data.count) bytes (owner gone?)"
                )
            }
            guard event.propertyAtom == property, event.propertyState == XEvent.PropertyState.newValue else {
                continue
            }
            // An event for a value already read (the INCR header itself) finds the property gone: keep waiting.
            guard let chunk = self.readProperty(property, delete: true) else { continue }
            if chunk.data.isEmpty {
                return (type ?? "", data)
            }
            type = type ?? self.name(of: chunk.type)
            data.append(chunk.data)
            guard data.count <= limit else { throw Self.tooLarge(data.count, limit) }
        }
    }

    /// The atom names of a `TARGETS` reply (ICCCM §2.6.2), in the owner's order.
    func targets(selection: String, timeout: Duration = .seconds(2)) throws -> [String] {
        let reply = try self.convert(selection: selection, target: "TARGETS", timeout: timeout)
        return reply.data.uint32Values().compactMap { self.name(of: XID($0)) }
    }

    /// Drops queued `PropertyNotify` events for our window, left over from earlier transfers.
    private func discardPropertyEvents() {
        var event = XEvent()
        while event.withPointer({
            self.lib.checkTypedWindowEvent(self.display, self.window, XEvent.Kind.propertyNotify, $0)
        }) != 0 {}
    }

    private static func tooLarge(_ count: Int, _ limit: Int) -> PasteboardError {
        PasteboardError(.tooLarge, "the clipboard item is larger than the \(limit)-byte limit (\(count) bytes so far)")
    }
}
#endif
