/// Arithmetic in GF(2⁸) as QR codes use it: bytes are polynomials over GF(2) reduced modulo the primitive
/// polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D), with α = 2 as generator (ISO/IEC 18004:2015, 7.5.2).
enum GaloisField256 {
    /// αⁱ for i in 0..<510, twice round the multiplicative group so that a product never needs a modulo.
    static let powers: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for exponent in 0..<255 {
            table[exponent] = UInt8(value)
            table[exponent + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return table
    }()

    /// The discrete logarithm of each nonzero byte to base α (the entry for 0 is unused).
    static let logarithms: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for exponent in 0..<255 { table[Int(powers[exponent])] = exponent }
        return table
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return powers[logarithms[Int(a)] + logarithms[Int(b)]]
    }
}

/// A systematic Reed–Solomon encoder: the error correction codewords are the remainder of the data polynomial,
/// times x^n, divided by the generator polynomial (x − α⁰)(x − α¹)…(x − α^(n−1)) (7.5.2 and Annex A).
struct ReedSolomonEncoder: Sendable {
    /// The generator's coefficients from the highest degree down, the leading 1 included (n + 1 of them).
    let generator: [UInt8]

    /// An encoder that makes `eccCount` error correction codewords per block.
    init(eccCount: Int) {
        precondition((1...254).contains(eccCount), "a generator polynomial over GF(256) has 1 to 254 roots")
        var polynomial: [UInt8] = [1]
        for exponent in 0..<eccCount {
            // Multiply by (x + αⁱ): in GF(2⁸) subtraction is addition (XOR).
            let root = GaloisField256.powers[exponent]
            var product = [UInt8](repeating: 0, count: polynomial.count + 1)
            for (index, coefficient) in polynomial.enumerated() {
                product[index] ^= coefficient
                product[index + 1] ^= GaloisField256.multiply(coefficient, root)
            }
            polynomial = product
        }
        self.generator = polynomial
    }

    /// The error correction codewords for one block of data codewords.
    func eccCodewords(for data: [UInt8]) -> [UInt8] {
        let degree = self.generator.count - 1
        var remainder = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for index in 0..<degree {
                remainder[index] ^= GaloisField256.multiply(self.generator[index + 1], factor)
            }
        }
        return remainder
    }
}
