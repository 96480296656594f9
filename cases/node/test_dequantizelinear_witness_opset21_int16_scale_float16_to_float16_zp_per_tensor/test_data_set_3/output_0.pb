
ByJЏЩeЭKЮJ`@TвQ;С6V”ФЭЪjШШ[