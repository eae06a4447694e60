package httpview

// The answers' earlier names, kept for one release. The JSON names say
// which are wire forms, apart from the allocator's and resources' types
// of the same names.
type (
	// Deprecated: use QuantitiesJSON.
	Quantities = QuantitiesJSON
	// Deprecated: use RoleJSON.
	Role = RoleJSON
	// Deprecated: use RoleQuotaJSON.
	RoleQuota = RoleQuotaJSON
	// Deprecated: use RolesJSON.
	Roles = RolesJSON
	// Deprecated: use QuotaConfigJSON.
	QuotaConfig = QuotaConfigJSON
	// Deprecated: use QuotaJSON.
	Quota = QuotaJSON
	// Deprecated: use AgentJSON.
	Agent = AgentJSON
	// Deprecated: use FrameworkJSON.
	Framework = FrameworkJSON
	// Deprecated: use OfferJSON.
	Offer = OfferJSON
	// Deprecated: use StateJSON.
	State = StateJSON
	// Deprecated: use ExplanationJSON.
	Explanation = ExplanationJSON
	// Deprecated: use RoleExplanationJSON.
	RoleExplanation = RoleExplanationJSON
	// Deprecated: use ReasonGroupJSON.
	ReasonGroup = ReasonGroupJSON
	// Deprecated: use AgentReasonJSON.
	AgentReason = AgentReasonJSON
	// Deprecated: use RoleQuantitiesJSON.
	RoleQuantities = RoleQuantitiesJSON
)
