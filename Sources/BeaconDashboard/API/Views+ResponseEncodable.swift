import Hummingbird

// The views the API's routes return: Hummingbird encodes them with the context's encoder
// (``DashboardRequestContext``), as `application/json`.
extension StoresView: ResponseEncodable {}
extension StoreView: ResponseEncodable {}
extension DeviceView: ResponseEncodable {}
extension HealthView: ResponseEncodable {}
extension ChainView: ResponseEncodable {}
extension ProblemsView: ResponseEncodable {}
