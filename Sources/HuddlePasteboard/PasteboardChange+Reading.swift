import Foundation

extension PasteboardChange {
    /// The change a watcher reports for a new item that offers `types`, with its representations read by `read`.
    ///
    /// A password manager's hint (``PasteboardType/passwordManagerHint``) is read first; when it says `secret`,
    /// nothing else is read and the change is marked secret. A hint that is offered but cannot be read (the owner
    /// does not answer in time, refuses the request, or sends more than the size limit) counts as `secret` too:
    /// the owner said the item may be secret, and failing to check must not let a password leave the machine. The
    /// item then carries the hint as `secret`, so ``PasteboardItem/isSecret`` agrees wherever it is checked.
    ///
    /// Otherwise the representations of the catalogue's types are read, each once under its canonical type; the
    /// other types are listed in ``types`` only.
    static func reading(
        types: [PasteboardType],
        sequence: Int,
        read: (PasteboardType) throws -> Data
    ) -> PasteboardChange {
        var item = PasteboardItem()
        if types.contains(.passwordManagerHint) {
            item.setData(Self.hint(read: read), for: .passwordManagerHint)
            if item.isSecret {
                return PasteboardChange(item: item, types: types, isSecret: true, sequence: sequence)
            }
        }
        for type in types where PasteboardTypeCatalog.entry(for: type) != nil {
            let canonical = type.canonical
            guard item.representation(for: canonical) == nil, let data = try? read(canonical) else { continue }
            item.setData(data, for: canonical)
        }
        return PasteboardChange(item: item, types: types, isSecret: false, sequence: sequence)
    }

    /// The value of an offered hint, or `secret` when it cannot be read.
    static func hint(read: (PasteboardType) throws -> Data) -> Data {
        (try? read(.passwordManagerHint)) ?? Data("secret".utf8)
    }
}
