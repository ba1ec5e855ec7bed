import Hummingbird

/// A file of the page: plain HTML, CSS and JavaScript from `Sources/BeaconDashboard/Web/`,
/// embedded in the binary at build time (SwiftPM's `embedInCode`), so the dashboard is one file
/// to install and the page loads nothing from anywhere else.
struct WebAsset: ResponseGenerator, Sendable {
    /// The file's bytes.
    let bytes: [UInt8]
    /// Its `Content-Type`.
    let contentType: String

    /// `GET /` and `GET /stores/<major>`: the page (its script reads the path).
    static let page = WebAsset(bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8")
    /// `GET /dashboard.js`.
    static let script = WebAsset(bytes: PackageResources.dashboard_js, contentType: "text/javascript; charset=utf-8")
    /// `GET /dashboard.css`.
    static let style = WebAsset(bytes: PackageResources.dashboard_css, contentType: "text/css; charset=utf-8")
    /// `GET /stores/<major>/history`: a store's history charts (its script reads the path).
    static let historyPage = WebAsset(bytes: PackageResources.history_html, contentType: "text/html; charset=utf-8")
    /// `GET /history.js`.
    static let historyScript = WebAsset(bytes: PackageResources.history_js, contentType: "text/javascript; charset=utf-8")
    /// `GET /d3.min.js`: D3 as Debian's libjs-d3 ships it (`Web/vendor/README.md`).
    static let d3 = WebAsset(bytes: PackageResources.d3_min_js, contentType: "text/javascript; charset=utf-8")

    /// The file, revalidated on every load (a new binary serves a new page).
    func response(from request: Request, context: some RequestContext) -> Response {
        Response(
            status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
