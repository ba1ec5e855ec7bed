import Hummingbird

/// The page: plain HTML, CSS and JavaScript from `Sources/BeaconDashboard/Web/`, embedded in the
/// binary at build time (SwiftPM's `embedInCode`), so the dashboard is one file to install and
/// the page loads nothing from anywhere else.
enum WebAssets {
    /// `GET /` and `GET /stores/<major>`: the page (its script reads the path).
    static var page: Response { asset(PackageResources.index_html, type: "text/html; charset=utf-8") }
    /// `GET /dashboard.js`.
    static var script: Response { asset(PackageResources.dashboard_js, type: "text/javascript; charset=utf-8") }
    /// `GET /dashboard.css`.
    static var style: Response { asset(PackageResources.dashboard_css, type: "text/css; charset=utf-8") }

    private static func asset(_ bytes: [UInt8], type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
