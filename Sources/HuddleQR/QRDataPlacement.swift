/// Places the codeword bits in the symbol (ISO/IEC 18004:2015, 7.7.3, Figure 20).
enum QRDataPlacement {
    /// Fills every module that is not a function module with `codewords`, most significant bit first, in
    /// two-module-wide columns from the right edge, zigzagging up the first column pair, down the next and so on;
    /// column 6 (the vertical timing pattern) is stepped over. Modules left once the codewords are spent are the
    /// remainder bits, light before masking (7.7.3).
    static func place(_ codewords: [UInt8], in matrix: inout QRModuleMatrix) {
        let bitCount = codewords.count * 8
        var bitIndex = 0
        var upward = true
        var right = matrix.size - 1
        while right > 0 {
            if right == 6 { right = 5 }
            for step in 0..<matrix.size {
                let y = upward ? matrix.size - 1 - step : step
                for x in [right, right - 1] where !matrix.isFunction(x: x, y: y) {
                    var dark = false
                    if bitIndex < bitCount {
                        dark = (codewords[bitIndex / 8] >> (7 - UInt8(bitIndex % 8))) & 1 != 0
                        bitIndex += 1
                    }
                    matrix.setData(x: x, y: y, dark: dark)
                }
            }
            upward.toggle()
            right -= 2
        }
        precondition(bitIndex == bitCount, "the symbol has room for every codeword")
    }
}
