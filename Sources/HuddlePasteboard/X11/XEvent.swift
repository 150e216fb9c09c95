#if os(Linux) || os(FreeBSD) || os(OpenBSD)
/// An Xlib `XEvent`: a union of 24 C longs (Xlib manual §10.2), read field by field at the LP64 offsets of the
/// event structures Huddle handles.
///
/// Every event structure starts with `int type; unsigned long serial; Bool send_event; Display *display;`
/// (offsets 0, 8, 16, 24); the fields after it are listed per event below (Xlib manual §10.5, §10.10.3, §10.11;
/// XFixes protocol §"Selection Tracking").
struct XEvent {
    /// The event type codes from X.h (core protocol §"Events").
    enum Kind {
        static let propertyNotify: Int32 = 28
        static let selectionClear: Int32 = 29
        static let selectionRequest: Int32 = 30
        static let selectionNotify: Int32 = 31
    }

    /// Event masks for `XSelectInput` (X.h).
    enum Mask {
        static let propertyChange = 1 << 22
    }

    /// `PropertyNotify` states: the property was changed or deleted.
    enum PropertyState {
        static let newValue: Int32 = 0
        static let deleted: Int32 = 1
    }

    /// 24 longs, the size of the union on LP64.
    var words = [UInt](repeating: 0, count: 24)

    var type: Int32 { self.int32(at: 0) }

    // XSelectionRequestEvent: owner 32, requestor 40, selection 48, target 56, property 64, time 72.
    var requestOwner: XID { self.word(at: 32) }
    var requestRequestor: XID { self.word(at: 40) }
    var requestSelection: XID { self.word(at: 48) }
    var requestTarget: XID { self.word(at: 56) }
    var requestProperty: XID { self.word(at: 64) }
    var requestTime: XID { self.word(at: 72) }

    // XSelectionEvent: requestor 32, selection 40, target 48, property 56, time 64.
    var selectionProperty: XID { self.word(at: 56) }
    var selectionTarget: XID { self.word(at: 48) }

    // XSelectionClearEvent: window 32, selection 40, time 48.
    var clearSelection: XID { self.word(at: 40) }

    // XPropertyEvent: window 32, atom 40, time 48, state (int) 56.
    var window: XID { self.word(at: 32) }
    var propertyAtom: XID { self.word(at: 40) }
    var propertyTime: XID { self.word(at: 48) }
    var propertyState: Int32 { self.int32(at: 56) }

    // XFixesSelectionNotifyEvent: window 32, subtype (int) 40, owner 48, selection 56, timestamp 64,
    // selection_timestamp 72 (the time the owner gave in SetSelectionOwner).
    var fixesOwner: XID { self.word(at: 48) }
    var fixesSelection: XID { self.word(at: 56) }
    var fixesTimestamp: XID { self.word(at: 64) }
    var fixesSelectionTimestamp: XID { self.word(at: 72) }

    /// A `SelectionNotify` reply to a conversion request (ICCCM §2.2): property `None` (0) means refused.
    static func selectionNotify(
        requestor: XID,
        selection: XID,
        target: XID,
        property: XID,
        time: XID
    ) -> XEvent {
        var event = XEvent()
        event.words[0] = UInt(Kind.selectionNotify)
        event.words[2] = 1  // send_event
        event.words[4] = requestor
        event.words[5] = selection
        event.words[6] = target
        event.words[7] = property
        event.words[8] = time
        return event
    }

    private func word(at offset: Int) -> UInt { self.words[offset / 8] }

    private func int32(at offset: Int) -> Int32 {
        Int32(truncatingIfNeeded: self.words[offset / 8])  // little-endian: the int is the low half of the word
    }

    /// Calls `body` with a pointer Xlib can fill or read.
    mutating func withPointer<R>(_ body: (UnsafeMutableRawPointer) -> R) -> R {
        self.words.withUnsafeMutableBytes { body($0.baseAddress!) }
    }
}
#endif
