import HTTPTypes
import Hummingbird
import NIOCore

/// An HTTP request made from fuzz bytes, laid out as HTTP/1.1 text so that seeds and findings read
/// as requests: a first line `METHOD TARGET`, header lines `Name: value` up to an empty line (or the
/// end), then the body. What an HTTP/1 parser would never hand the router is mended rather than dropped: an
/// unknown method becomes GET, a header line without a valid name is skipped, control characters
/// in the target are left out; `Host` becomes the request's authority, as the server makes it.
struct FuzzRequest {
    let head: HTTPRequest
    let body: ByteBuffer

    init(_ bytes: UnsafeRawBufferPointer) {
        // Split on the bytes: as a String, "\r\n" is one Character, never equal to "\n".
        var lines: [String] = []
        var rest = bytes[...]
        var headEnded = false
        while let end = rest.firstIndex(of: UInt8(ascii: "\n")) {
            var line = rest[..<end]
            rest = rest[(end + 1)...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty {
                headEnded = true
                break
            }
            lines.append(String(decoding: line, as: UTF8.self))
        }
        if !headEnded, !rest.isEmpty {  // a last line without its end: one more line of the head
            lines.append(String(decoding: rest, as: UTF8.self))
            rest = rest[rest.endIndex...]
        }
        let first = lines.first ?? ""
        let words = first.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        let method = words.first.flatMap { HTTPRequest.Method(String($0)) } ?? .get
        var target = words.count > 1 ? String(words[1].unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }.map(Character.init)) : "/"
        if target.isEmpty { target = "/" }
        var fields = HTTPFields()
        var authority: String?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
            let value = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            if name.canonicalName == "host" {  // HTTPTypes keeps it as the authority, never a field
                authority = authority ?? value
            } else {
                fields.append(HTTPField(name: name, value: value))
            }
        }
        if !rest.isEmpty { fields[.contentLength] = String(rest.count) }
        head = HTTPRequest(method: method, scheme: "http", authority: authority, path: target, headerFields: fields)
        body = ByteBuffer(bytes: rest)
    }

    /// The request for the router, with `cookie` (`name=value`) added when given.
    func request(cookie: String?) -> Request {
        var head = head
        if let cookie { head.headerFields.append(HTTPField(name: .cookie, value: cookie)) }
        return Request(head: head, body: RequestBody(buffer: body))
    }
}
