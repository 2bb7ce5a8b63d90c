CREATE TABLE "pt_bookings" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"environment" text NOT NULL,
	"provider_id" text NOT NULL,
	"provider_reference" text NOT NULL,
	"status" text NOT NULL,
	"token_nonce" text NOT NULL,
	"record" jsonb NOT NULL,
	"status_history" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pt_bookings_token_nonce_unique" UNIQUE("token_nonce")
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"environment" text NOT NULL,
	"provider_id" text NOT NULL,
	"provider_reference" text NOT NULL,
	"product_id" text NOT NULL,
	"status" text NOT NULL,
	"record" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "pt_bookings" ADD CONSTRAINT "pt_bookings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pt_bookings_tenant_idx" ON "pt_bookings" USING btree ("tenant_id","environment","created_at");--> statement-breakpoint
CREATE INDEX "subscriptions_tenant_idx" ON "subscriptions" USING btree ("tenant_id","environment","created_at");