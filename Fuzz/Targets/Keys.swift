@_spi(Fuzzing) import RFB

/// Fixed RSA keys (1024 bits, made once with `openssl genpkey -algorithm RSA -pkeyopt
/// rsa_keygen_bits:1024`): ours for every RSA-AES run, and the server's for the target that
/// plays the server. Fixed so a run costs no key generation and replays exactly.
enum FuzzKeys {
    static let client = try! RSAKey(pem: clientPEM)
    static let server = try! RSAKey(pem: serverPEM)
    /// Our RSA-AES random and ARD private value.
    static let secret: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    static let fixed = FixedKeys(rsa: client, secret: secret, cache: RSAMemo.shared)

    static let clientPEM = """
-----BEGIN PRIVATE KEY-----
MIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBAKHhNCOqw1I4laI5
+jLOH/mIU+Cfn/WDLEuDmXhpjTHupkXxotwnED+m26xYtsg+0tycpvRsNt7MjGeT
g9CzHhud/4wI1g0j44Jfmsd9YrtK7Kc4u7SLrLnfpVaJnpADELkGwK50tO20c6I5
8ABZpjBqExrGRor2qYhdi+XSvfsBAgMBAAECgYAZRCI0MvH7glNwl6YCigOZmfql
g6Se2FNwkeDBV5AvK/WN0zI9NGen165PzyTwSkX1Iwo3+i/yRHDhtbeMOnjHTSMe
D0RB3Bo4P3uXcE/km1LTcToOXR5A0mI9ycn3YYdYZTRwTZ2pnjl2GRZFupFKgC4N
lG7E+pZ+R/xRN1hKZQJBANKoZMLYKH/NPURWP+ehAEIixsPXvO2z7pCTuauKRr2R
y+otPWvEHjzo9X8wgHWsuXN2pfr0jkZXy0LuhVIVewsCQQDEuQ28gtuY5eJbnab/
AvPj1ovW4iAhmQr2GL26HystQGk0x/XTglX9QiOEtKrkBibQwbPGVMefcHmYL0dV
f8mjAkEAk7icN/ompEBDN1mYJJDFQptqcMknZjToFSBSchVcN/E2Ynfo+1oirina
hZ94ZYyC25IXIJ0/69oC4mOqv/3qMwJBAKqhzK1fX7ReaZmHxErbN8q+1Gqdlrst
sRlG2oIu+Nd2UArNCofcPFPA42f/AV9pio92BEYaUVAVUhLTp28cuTsCQBR9fTHq
BOBIJpUw3816oNewd4+ez2b3k19aO/EmBrgukiYJKxARI2T5X6cwNhT2GDDMBcST
Ua2muDajH+LvJ0c=
-----END PRIVATE KEY-----
"""

    static let serverPEM = """
-----BEGIN PRIVATE KEY-----
MIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBAO//dn2eGbQ8eiW/
kHBrMwnI7TD6WnNCDjgIHYhntkr3Uhfuw7U8BvDOa0zr0w58yo1gmDG6rtPfuXKX
tL68tBFMGSAoCVO5WhTE2l/P4exsgHuYU7dOkvc6Byl9htalPTsXHwJiP46V3kHQ
7XYbdTV6Z1sIsFLKyjDOVqk3yPZbAgMBAAECgYA1HSx0EJFPujKuN/8XYiIhgD4+
IKnz6CKNc/5VOd62KJYahdT6PxaqJITKuUY0ZpnNQBtupgobCeBY5Ao0TD7tR1tY
M5ACIdI0cZdHXAA7GJsUQJsQ0XUjG8J/bgeEodG9GsnhKsY5fmpEU1GqXcdmocye
tktYSFRbeqhxijE+gQJBAPhh4aFOq7CHE5R6Y66rzjJtcFZdz1kQS/rNHGoyh8Hb
0njHjsR9bhRD0S04oDlbljYt2iTgNBDiMmpqxFD1AYMCQQD3W8C79W/x33YJnql3
6rte0bkDR1rRZhDBdSiZxcm18Sv2eEgvWUeJld+Gp3ZMiRgdViiWQawBRdN7btsc
t9hJAkEA4Ru05gDq0b5aHIMfvLqw0jslSOEUft+qPM+QJR9Osn+LrTMPTT1weqVL
+vQLInDDHq9HuYwJJBQdJR1GdyjWCQJBAL2vxegdekAgXfNYkZrdDdzTtS5XfMSR
oY3JW144t8tna5AxgyGUNHDE1sn7B5P/mdd9Z9h5+f5r3paMV0j5jskCQDZg7vaP
+c7XcY2B5C6tQ7/Ljq8889j1FD5RjXEQ7fQ7ZJXLkJa/XiF8R+525uZPukV+510N
WbiyC2Mle49ntX0=
-----END PRIVATE KEY-----
"""
}
