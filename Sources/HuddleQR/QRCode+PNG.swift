extension QRCode {
    /// The symbol as a PNG image: black dark modules on a white background, `scale` pixels per module, with a
    /// quiet zone of `quietZone` modules on every side (ISO/IEC 18004:2015, 6.3.8, asks for at least 4).
    ///
    /// The image is 1-bit grayscale, `(size + 2 × quietZone) × scale` pixels on a side, written without
    /// compression (``PNGWriter``): a version 10 symbol at the default scale is about 34 KB.
    public func png(scale: Int = 8, quietZone: Int = 4) -> [UInt8] {
        precondition(scale >= 1, "a module is at least one pixel")
        precondition(quietZone >= 0, "the quiet zone cannot be negative")
        let side = (self.size + 2 * quietZone) * scale
        return PNGWriter.grayscaleOneBit(width: side, height: side) { x, y in
            let moduleX = x / scale - quietZone
            let moduleY = y / scale - quietZone
            let inSymbol = (0..<self.size).contains(moduleX) && (0..<self.size).contains(moduleY)
            return !(inSymbol && self.isDark(x: moduleX, y: moduleY))
        }
    }
}
